import BikebeaconAPI
import Foundation
import SQLKit

/// Ends the missing periods that ran out, and reminds owners before they do (#35). Run by the
/// delivery worker's pass; every step is one compare-and-swap on the bike's row, so replicas
/// sharing a database remind once and end a period once.
struct MissingExpiry: Sendable {
    let database: Database
    let missingList: MissingListStore
    let dispatcher: NotificationDispatcher
    let period: MissingPeriod

    /// What one pass did, for tests and logs.
    struct Pass: Equatable, Sendable {
        var reminded: [String] = []
        var ended: [String] = []
    }

    @discardableResult
    func run(now: Int64) async throws -> Pass {
        var pass = Pass()
        // Bikes made missing before periods existed get one from the first pass on.
        try await database.withSession { db in
            try await db.raw("""
                UPDATE bikes SET missing_until_ms = \(bind: period.end(from: now))
                WHERE missing_since_ms IS NOT NULL AND missing_until_ms IS NULL
                """).run()
        }
        let lead = period.reminderLead
        let reminders = try await ids("""
            SELECT id FROM bikes WHERE missing_since_ms IS NOT NULL AND missing_reminded_ms IS NULL
              AND missing_until_ms <= \(bind: now + lead) AND missing_until_ms > \(bind: now) ORDER BY missing_until_ms LIMIT 50
            """)
        for id in reminders where try await remind(id: id, now: now) { pass.reminded.append(id) }
        let ended = try await ids("""
            SELECT id FROM bikes WHERE missing_since_ms IS NOT NULL AND missing_until_ms <= \(bind: now) ORDER BY missing_until_ms LIMIT 50
            """)
        for id in ended where try await end(id: id, now: now) { pass.ended.append(id) }
        return pass
    }

    private func ids(_ query: SQLQueryString) async throws -> [String] {
        try await database.withSession { db in
            try await db.raw(query).all().map { try $0.decode(column: "id", as: String.self) }
        }
    }

    /// Claims the reminder of this period and queues it (push and email); false when already claimed.
    func remind(id: String, now: Int64) async throws -> Bool {
        try await database.transaction { db in
            guard let row = try await db.raw("""
                UPDATE bikes SET missing_reminded_ms = \(bind: now)
                WHERE id = \(bind: id) AND missing_since_ms IS NOT NULL AND missing_reminded_ms IS NULL AND missing_until_ms > \(bind: now)
                RETURNING name, owner_id, missing_until_ms
                """).first() else { return false }
            let until = try row.decode(column: "missing_until_ms", as: Int64.self)
            try await dispatcher.queue(notification(.missingEnding, id: id, row: row, now: now, day: until), now: now, in: db)
            return true
        }
    }

    /// Takes the bike off the missing list, in the transaction that records the list's change; false when another pass did.
    func end(id: String, now: Int64) async throws -> Bool {
        try await database.transaction { db in
            guard let row = try await db.raw("""
                UPDATE bikes SET missing_since_ms = NULL, missing_until_ms = NULL, missing_reminded_ms = NULL, updated_ms = \(bind: now)
                WHERE id = \(bind: id) AND missing_since_ms IS NOT NULL AND missing_until_ms <= \(bind: now)
                RETURNING name, owner_id, beacon_uuid, beacon_major, beacon_minor
                """).first() else { return false }
            if let beacon = try MissingListStore.beacon(row) { try await missingList.recordChange(of: [beacon], in: db) }
            try await dispatcher.queue(notification(.missingEnded, id: id, row: row, now: now, day: now), now: now, in: db)
            return true
        }
    }

    private func notification(_ event: OwnerNotification.Event, id: String, row: any SQLRow, now: Int64, day: Int64) throws -> OwnerNotification {
        OwnerNotification(
            event: event, bikeId: id, bikeName: try row.decode(column: "name", as: String.self),
            ownerId: try row.decode(column: "owner_id", as: String.self), place: nil, latitude: nil, longitude: nil,
            time: Timestamp.format(milliseconds: now), zone: nil, due: String(Timestamp.format(milliseconds: day).prefix(10)))
    }
}
