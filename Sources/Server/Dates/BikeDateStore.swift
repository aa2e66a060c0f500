import BikebeaconAPI
import Foundation
import SQLKit

/// Bikes' dates and their reminders. A reminder is claimed by one compare-and-swap on its row in
/// the transaction that queues it, so replicas sharing the database send it once.
struct BikeDateStore: Sendable {
    let database: Database

    static let maxPerBike = 20

    /// A request checked and resolved: the due day, lead time and zone the reminder is computed from.
    struct Entry: Sendable {
        var name: String
        var due: String
        var dueMilliseconds: Int64
        var leadDays: Int
        var timeZone: TimeZone
        /// As the owner gave it: Foundation may name a zone otherwise (UTC as GMT).
        var timeZoneName: String

        func remindAt() -> Int64 { ReminderSchedule.remindAt(due: dueMilliseconds, leadDays: leadDays, timeZone: timeZone) }
        func state(now: Int64) -> String { ReminderSchedule.isPast(due: dueMilliseconds, timeZone: timeZone, now: now) ? "past" : "scheduled" }
    }

    enum Failure: Error, Equatable {
        case tooMany
    }

    /// Adds a date to the owner's bike; nil when the bike is not theirs.
    func create(bikeID: String, owner: String, entry: Entry, now: Int64) async throws -> BikeDate? {
        let id = Tokens.id()
        return try await database.transaction { db in
            guard try await db.raw("SELECT id FROM bikes WHERE id = \(bind: bikeID) AND owner_id = \(bind: owner)").first() != nil
            else { return nil }
            let count = try await db.raw("SELECT COUNT(*) AS n FROM bike_dates WHERE bike_id = \(bind: bikeID)").first()?
                .decode(column: "n", as: Int.self) ?? 0
            guard count < Self.maxPerBike else { throw Failure.tooMany }
            try await db.raw("""
                INSERT INTO bike_dates (id, bike_id, name, due, remind_days, time_zone, remind_ms, reminder, reminded_ms, created_ms)
                VALUES (\(bind: id), \(bind: bikeID), \(bind: entry.name), \(bind: entry.due), \(bind: entry.leadDays),
                  \(bind: entry.timeZoneName), \(bind: entry.remindAt()), \(bind: entry.state(now: now)), NULL, \(bind: now))
                """).run()
            return try await find(id: id, in: db)
        }
    }

    /// Changes a date; its reminder is scheduled afresh. Nil when it is not one of the owner's dates for this bike.
    func update(id: String, bikeID: String, owner: String, entry: Entry, now: Int64) async throws -> BikeDate? {
        try await database.transaction { db in
            guard try await owned(id: id, bikeID: bikeID, owner: owner, in: db) else { return nil }
            try await db.raw("""
                UPDATE bike_dates SET name = \(bind: entry.name), due = \(bind: entry.due), remind_days = \(bind: entry.leadDays),
                  time_zone = \(bind: entry.timeZoneName), remind_ms = \(bind: entry.remindAt()),
                  reminder = \(bind: entry.state(now: now)), reminded_ms = NULL
                WHERE id = \(bind: id)
                """).run()
            return try await find(id: id, in: db)
        }
    }

    /// False when it is not one of the owner's dates for this bike.
    func delete(id: String, bikeID: String, owner: String) async throws -> Bool {
        try await database.transaction { db in
            guard try await owned(id: id, bikeID: bikeID, owner: owner, in: db) else { return false }
            try await db.raw("DELETE FROM bike_dates WHERE id = \(bind: id)").run()
            return true
        }
    }

    /// The owner's dates for one bike (or all their bikes), soonest first.
    func list(owner: String, bikeID: String?) async throws -> [BikeDate] {
        try await database.withSession { db in
            let rows: [any SQLRow]
            if let bikeID {
                rows = try await db.raw("""
                    SELECT d.* FROM bike_dates d JOIN bikes b ON b.id = d.bike_id
                    WHERE b.owner_id = \(bind: owner) AND d.bike_id = \(bind: bikeID) ORDER BY d.due, d.created_ms, d.id
                    """).all()
            } else {
                rows = try await db.raw("""
                    SELECT d.* FROM bike_dates d JOIN bikes b ON b.id = d.bike_id
                    WHERE b.owner_id = \(bind: owner) ORDER BY d.due, d.created_ms, d.id
                    """).all()
            }
            return try rows.map(Self.date)
        }
    }

    /// Queues the reminders that are due, each once: push and email through the owner's channels.
    func remindDue(now: Int64, dispatcher: NotificationDispatcher) async throws {
        for id in try await due(now: now) {
            try await remind(id: id, now: now, dispatcher: dispatcher)
        }
    }

    /// Dates whose reminder is due and not yet sent.
    func due(now: Int64) async throws -> [String] {
        try await database.withSession { db in
            try await db.raw("""
                SELECT id FROM bike_dates WHERE reminder = 'scheduled' AND remind_ms <= \(bind: now) ORDER BY remind_ms LIMIT 50
                """).all().map { try $0.decode(column: "id", as: String.self) }
        }
    }

    /// Claims one date's reminder and queues it; false when another replica (or an earlier pass) already has.
    @discardableResult
    func remind(id: String, now: Int64, dispatcher: NotificationDispatcher) async throws -> Bool {
        try await database.transaction { db in
            guard let row = try await db.raw("""
                UPDATE bike_dates SET reminder = 'sent', reminded_ms = \(bind: now)
                WHERE id = \(bind: id) AND reminder = 'scheduled' RETURNING bike_id, name, due
                """).first() else { return false }
            let bikeID = try row.decode(column: "bike_id", as: String.self)
            guard let bike = try await db.raw("SELECT name, owner_id FROM bikes WHERE id = \(bind: bikeID)").first() else { return false }
            try await dispatcher.queue(OwnerNotification(
                event: .reminder, bikeId: bikeID, bikeName: try bike.decode(column: "name", as: String.self),
                ownerId: try bike.decode(column: "owner_id", as: String.self), place: nil, latitude: nil, longitude: nil,
                time: Timestamp.format(milliseconds: now), zone: nil,
                dateName: try row.decode(column: "name", as: String.self), due: try row.decode(column: "due", as: String.self)),
                now: now, in: db)
            return true
        }
    }

    private func owned(id: String, bikeID: String, owner: String, in db: any SQLDatabase) async throws -> Bool {
        try await db.raw("""
            SELECT d.id FROM bike_dates d JOIN bikes b ON b.id = d.bike_id
            WHERE d.id = \(bind: id) AND d.bike_id = \(bind: bikeID) AND b.owner_id = \(bind: owner)
            """).first() != nil
    }

    private func find(id: String, in db: any SQLDatabase) async throws -> BikeDate? {
        try await db.raw("SELECT * FROM bike_dates WHERE id = \(bind: id)").first().map(Self.date)
    }

    static func date(_ row: any SQLRow) throws -> BikeDate {
        BikeDate(
            id: try row.decode(column: "id", as: String.self),
            bikeId: try row.decode(column: "bike_id", as: String.self),
            name: try row.decode(column: "name", as: String.self),
            due: try row.decode(column: "due", as: String.self),
            remindDaysBefore: try row.decode(column: "remind_days", as: Int.self),
            timeZone: try row.decode(column: "time_zone", as: String.self),
            remindAt: Timestamp.format(milliseconds: try row.decode(column: "remind_ms", as: Int64.self)),
            reminder: try row.decode(column: "reminder", as: String.self),
            remindedAt: try row.decode(column: "reminded_ms", as: Int64?.self).map { Timestamp.format(milliseconds: $0) })
    }
}
