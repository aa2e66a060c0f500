import Beacon
import BikebeaconAPI
import Foundation
import SQLKit

/// Bikes in the database. Every change to a missing bike's beacon or description is recorded
/// on the missing list in the same transaction.
struct BikeStore: Sendable {
    let database: Database
    let missingList: MissingListStore
    let notifications: NotificationDispatcher
    /// Most bikes per owner (`ServerOptions.bikesPerAccount`).
    let limit: Int
    var missingPeriod = MissingPeriod()
    var newTagHold = NewTagHold()

    static let columns = """
        id, owner_id, name, make, model, colour, frame_number, engine_number, notes,
        beacon_uuid, beacon_major, beacon_minor, missing_since_ms, created_ms, updated_ms, recovery_contact, missing_until_ms,
        CASE WHEN sealed_case IS NOT NULL THEN 1 ELSE 0 END AS under_review
        """

    func create(owner: String, fields: BikeFields, now: Int64) async throws -> Bike {
        let id = Tokens.id()
        guard let beacon = fields.beacon else { throw APIError.invalid("a bike needs a 'beacon'") }
        return try await database.transaction { db in
            guard try await beaconHolder(beacon, in: db) == nil else { throw Self.beaconTaken }
            // Concurrent requests on PostgreSQL may each see one bike short of the limit; a bike or two over it is no harm.
            let owned = try await db.raw("SELECT COUNT(*) AS n FROM bikes WHERE owner_id = \(bind: owner)")
                .first()?.decode(column: "n", as: Int.self) ?? 0
            guard owned < limit else {
                throw APIError(.conflict, "too_many_bikes",
                               "an account may have at most \(limit) bikes; delete one you no longer have (the server's operator sets the limit with serve --bikes-per-account)")
            }
            try await db.raw("""
                INSERT INTO bikes (id, owner_id, name, make, model, colour, frame_number, engine_number, notes,
                  beacon_uuid, beacon_major, beacon_minor, missing_since_ms, created_ms, updated_ms, recovery_contact, beacon_since_ms)
                VALUES (\(bind: id), \(bind: owner), \(bind: fields.name ?? ""), \(bind: fields.make ?? ""),
                  \(bind: fields.model ?? ""), \(bind: fields.colour ?? ""), \(bind: fields.frameNumber ?? ""),
                  \(bind: fields.engineNumber ?? ""), \(bind: fields.notes ?? ""), \(bind: beacon.uuid.uuidString),
                  \(bind: Int(beacon.major)), \(bind: Int(beacon.minor)), NULL, \(bind: now), \(bind: now),
                  \(bind: fields.recoveryContact ?? ""), \(bind: now))
                """).run()
            try await SightingSeal.inheritCase(bikeID: id, in: db)
            guard let bike = try await find(id: id, owner: owner, in: db) else { throw APIError.bikeNotFound }
            return bike
        }
    }

    func list(owner: String) async throws -> [Bike] {
        try await database.withSession { db in
            try await db.raw("SELECT \(unsafeRaw: Self.columns) FROM bikes WHERE owner_id = \(bind: owner) ORDER BY created_ms, id")
                .all().map(Self.bike)
        }
    }

    func find(id: String, owner: String) async throws -> Bike? {
        try await database.withSession { try await find(id: id, owner: owner, in: $0) }
    }

    /// The bike with this id if `owner` owns it; another owner's bike is indistinguishable from none.
    func find(id: String, owner: String, in db: any SQLDatabase) async throws -> Bike? {
        try await db.raw("SELECT \(unsafeRaw: Self.columns) FROM bikes WHERE id = \(bind: id) AND owner_id = \(bind: owner)")
            .first().map(Self.bike)
    }

    func update(id: String, owner: String, fields: BikeFields, now: Int64) async throws -> Bike? {
        try await database.transaction { db in
            try await lock(id: id, in: db)
            guard let old = try await find(id: id, owner: owner, in: db) else { return nil }
            let new = fields.applied(to: old)
            if new.beacon != old.beacon {
                if old.missing, newTagHold.length > 0 { throw newTagHold.tagChangeRefusal() }
                guard try await beaconHolder(new.beacon, in: db) == nil else { throw Self.beaconTaken }
                // The tag was put on this bike now: the hold on new tags starts again (`NewTagHold`).
                try await db.raw("UPDATE bikes SET beacon_since_ms = \(bind: now) WHERE id = \(bind: id)").run()
            }
            try await db.raw("""
                UPDATE bikes SET name = \(bind: new.name), make = \(bind: new.make), model = \(bind: new.model),
                  colour = \(bind: new.colour), frame_number = \(bind: new.frameNumber),
                  engine_number = \(bind: new.engineNumber), notes = \(bind: new.notes),
                  beacon_uuid = \(bind: new.beacon.uuid.uuidString), beacon_major = \(bind: Int(new.beacon.major)),
                  beacon_minor = \(bind: Int(new.beacon.minor)), updated_ms = \(bind: now),
                  recovery_contact = \(bind: new.recoveryContact)
                WHERE id = \(bind: id)
                """).run()
            if new.beacon != old.beacon { try await SightingSeal.inheritCase(bikeID: id, in: db) }
            if old.missing, new.beacon != old.beacon || new.description != old.description {
                try await missingList.recordChange(of: [old.beacon, new.beacon], in: db)
            }
            return try await find(id: id, owner: owner, in: db)
        }
    }

    /// Deletes the owner's bike; sealed sightings of an unreleased case are kept for the police (`SightingSeal.keepEvidence`).
    func delete(id: String, owner: String, now: Int64) async throws -> Bool {
        try await database.transaction { db in
            guard let bike = try await find(id: id, owner: owner, in: db) else { return false }
            try await SightingSeal.keepEvidence(bikeCondition: "b.id = \(bind: id)", now: now, in: db)
            try await db.raw("DELETE FROM bikes WHERE id = \(bind: id)").run()
            if bike.missing { try await missingList.recordChange(of: [bike.beacon], in: db) }
            return true
        }
    }

    /// Puts the bike on (or takes it off) the missing list for one `missingPeriod`. Marking a missing
    /// bike missing again renews its period from now; neither that nor a second recovery changes the list's version.
    /// A tag under the `newTagHold` goes on the list only with a police report's reference; every report
    /// (renewals too) is kept with its reference for the operator (`MissingReports`).
    func setMissing(id: String, owner: String, missing: Bool, policeReference: String? = nil, now: Int64) async throws -> Bike? {
        try await database.transaction { db in
            try await lock(id: id, in: db)
            guard let bike = try await find(id: id, owner: owner, in: db) else { return nil }
            // A report's open case never stops this (the bike stays on the list, sealed); a case closed as genuine does.
            if missing, try await db.raw("SELECT id FROM bikes WHERE id = \(bind: id) AND \(unsafeRaw: AbuseStore.closedOnBike)").first() != nil {
                throw AbuseStore.closedCase
            }
            if missing {
                let tagSince = try await beaconSince(id: id, in: db) ?? now
                let held = !bike.missing && newTagHold.end(tagSince: tagSince, now: now) != nil
                if held, policeReference == nil, let end = newTagHold.end(tagSince: tagSince, now: now) {
                    throw newTagHold.refusal(tagSince: tagSince, until: end)
                }
                try await MissingReports.record(bike: bike, owner: owner, tagSince: tagSince, policeReference: policeReference,
                                                passedHold: held, now: now, in: db)
            }
            let until: Int64? = missing ? missingPeriod.end(from: now) : nil
            guard bike.missing != missing else {
                if missing {
                    try await db.raw("""
                        UPDATE bikes SET missing_until_ms = \(bind: until), missing_reminded_ms = NULL, updated_ms = \(bind: now)
                        WHERE id = \(bind: id)
                        """).run()
                }
                return try await find(id: id, owner: owner, in: db)
            }
            let since: Int64? = missing ? now : nil
            try await db.raw("""
                UPDATE bikes SET missing_since_ms = \(bind: since), missing_until_ms = \(bind: until), missing_reminded_ms = NULL,
                  updated_ms = \(bind: now)
                WHERE id = \(bind: id)
                """).run()
            try await missingList.recordChange(of: [bike.beacon], in: db)
            if !missing {
                // A recovered bike's trail is nobody's business any more: its share links stop working now.
                try await ShareStore.revokeAll(bikeID: bike.id, now: now, in: db)
                try await notifications.offer(OwnerNotification(
                    event: .recovered, bikeId: bike.id, bikeName: bike.name, ownerId: owner, place: nil, latitude: nil,
                    longitude: nil, time: Timestamp.format(milliseconds: now), zone: nil), now: now, in: db)
            }
            return try await find(id: id, owner: owner, in: db)
        }
    }

    /// On PostgreSQL, locks the bike's row for the transaction: a new tag and a missing report sent at once
    /// must not each pass their check against the other's old state (the new tag followed with no hold).
    /// SQLite has one writer, and the server one connection to it.
    private func lock(id: String, in db: any SQLDatabase) async throws {
        guard database.flavor == .postgres else { return }
        try await db.raw("SELECT id FROM bikes WHERE id = \(bind: id) FOR UPDATE").run()
    }

    private func beaconSince(id: String, in db: any SQLDatabase) async throws -> Int64? {
        try await db.raw("SELECT beacon_since_ms FROM bikes WHERE id = \(bind: id)").first()?.decode(column: "beacon_since_ms", as: Int64?.self)
    }

    static let beaconTaken = APIError(.conflict, "beacon_taken",
        "this beacon already belongs to a bike; a beacon can be on one bike only")

    private func beaconHolder(_ beacon: BeaconID, in db: any SQLDatabase) async throws -> String? {
        try await db.raw("""
            SELECT id FROM bikes WHERE beacon_uuid = \(bind: beacon.uuid.uuidString)
              AND beacon_major = \(bind: Int(beacon.major)) AND beacon_minor = \(bind: Int(beacon.minor))
            """).first()?.decode(column: "id", as: String.self)
    }

    static func bike(_ row: any SQLRow) throws -> Bike {
        guard let beacon = try MissingListStore.beacon(row) else {
            throw StorageError.corruptRow("bikes row holds an invalid beacon")
        }
        let missingSince = try row.decode(column: "missing_since_ms", as: Int64?.self)
        let missingUntil = try row.decode(column: "missing_until_ms", as: Int64?.self)
        return Bike(
            id: try row.decode(column: "id", as: String.self),
            name: try row.decode(column: "name", as: String.self),
            make: try row.decode(column: "make", as: String.self),
            model: try row.decode(column: "model", as: String.self),
            colour: try row.decode(column: "colour", as: String.self),
            frameNumber: try row.decode(column: "frame_number", as: String.self),
            engineNumber: try row.decode(column: "engine_number", as: String.self),
            notes: try row.decode(column: "notes", as: String.self),
            beacon: beacon,
            missing: missingSince != nil,
            missingSince: missingSince.map { Timestamp.format(milliseconds: $0) },
            createdAt: Timestamp.format(milliseconds: try row.decode(column: "created_ms", as: Int64.self)),
            updatedAt: Timestamp.format(milliseconds: try row.decode(column: "updated_ms", as: Int64.self)),
            recoveryContact: try row.decode(column: "recovery_contact", as: String.self),
            missingUntil: missingUntil.map { Timestamp.format(milliseconds: $0) },
            underReview: try row.decode(column: "under_review", as: Int.self) != 0 ? true : nil)
    }
}
