import BikebeaconAPI
import Foundation
import SQLKit

/// What a report's seal means in the database (#43). A sighting is stored under the case sealing its bike at the
/// moment of its insert (`caseOfBike`, read under a share lock of the bike's row on PostgreSQL, so it waits for a
/// report or release in flight and then sees its outcome); every owner-facing read shows a sighting only when it
/// was stored unsealed or its case was released (`ownerVisible`), the latter marked held for review.
enum SightingSeal {
    /// A SQL condition on a `sightings` row aliased `alias`: its owner (and anyone through them) may see it.
    static func ownerVisible(_ alias: String) -> String {
        "(\(alias).sealed_case IS NULL OR EXISTS (SELECT 1 FROM abuse_reports sr WHERE sr.id = \(alias).sealed_case AND sr.status = 'released'))"
    }

    /// The case sealing the bike now, as a value for the sighting's insert. `FOR SHARE` conflicts with the report's
    /// row lock and update, so on PostgreSQL the insert and the seal are ordered: never a sighting unsealed after it.
    static func caseOfBike(_ bikeID: String, flavor: Database.Flavor) -> any SQLExpression {
        SQLQueryString("(SELECT sealed_case FROM bikes WHERE id = \(bind: bikeID)\(unsafeRaw: flavor == .postgres ? " FOR SHARE" : ""))")
    }

    /// Stops whatever of the bike's whereabouts is on its way to the owner, inside the seal's transaction: summaries
    /// held back, queued push and mail, webhook deliveries. The event stream skips its events itself (`EventStore`).
    static func stopDisclosure(bikeID: String, now: Int64, in db: any SQLDatabase) async throws {
        try await db.raw("UPDATE notification_windows SET pending = NULL WHERE bike_id = \(bind: bikeID)").run()
        try await db.raw("""
            UPDATE notification_deliveries SET failed_ms = \(bind: now), last_error = 'sealed: the bike was reported'
            WHERE bike_id = \(bind: bikeID) AND delivered_ms IS NULL AND failed_ms IS NULL
            """).run()
        try await db.raw("""
            UPDATE deliveries SET failed_ms = \(bind: now), last_error = 'sealed: the bike was reported'
            WHERE delivered_ms IS NULL AND failed_ms IS NULL AND event_id IN (SELECT id FROM events WHERE bike_id = \(bind: bikeID))
            """).run()
    }

    /// A new or re-tagged bike joins the open case of its tag: deleting the bike and adding the tag again, or moving
    /// the tag to another bike, does not escape a seal.
    static func inheritCase(bikeID: String, in db: any SQLDatabase) async throws {
        try await db.raw("""
            UPDATE bikes SET sealed_case = (SELECT MIN(r.case_id) FROM abuse_reports r WHERE r.status = 'open' AND (r.bike_id = bikes.id
              OR (r.beacon_uuid = bikes.beacon_uuid AND r.beacon_major = bikes.beacon_major AND r.beacon_minor = bikes.beacon_minor)))
            WHERE id = \(bind: bikeID)
            """).run()
    }

    /// Copies the sealed sightings of bikes about to be deleted (`bikeCondition`, a condition on `b`) whose case was not
    /// released, as heard, into `sealed_evidence`, for the police until the case's retention ends or `abuse purge`.
    static func keepEvidence(bikeCondition: SQLQueryString, now: Int64, in db: any SQLDatabase) async throws {
        let rows = try await db.raw("""
            SELECT s.*, t.name AS sentinel_name, b.name AS bike_name, a.email AS owner_email, h.email AS sentinel_owner_email
            FROM sightings s JOIN bikes b ON b.id = s.bike_id JOIN accounts a ON a.id = b.owner_id
            JOIN sentinels t ON t.id = s.sentinel_id LEFT JOIN accounts h ON h.id = t.owner_id
            WHERE \(bikeCondition) AND s.sealed_case IS NOT NULL AND NOT \(unsafeRaw: ownerVisible("s"))
            """).all()
        for row in rows {
            let sighting = try SightingStore.exact(row)
            try await db.raw("""
                INSERT INTO sealed_evidence (sighting_id, case_id, bike_id, owner_email, bike_name, sentinel_owner_email, sighting, kept_ms)
                VALUES (\(bind: sighting.id), \(bind: try row.decode(column: "sealed_case", as: String.self)), \(bind: sighting.bikeId),
                  \(bind: try row.decode(column: "owner_email", as: String.self)), \(bind: try row.decode(column: "bike_name", as: String.self)),
                  \(bind: try row.decode(column: "sentinel_owner_email", as: String?.self)),
                  \(bind: String(decoding: try JSONResponse.encoder.encode(sighting), as: UTF8.self)), \(bind: now))
                ON CONFLICT (sighting_id) DO NOTHING
                """).run()
        }
    }

    /// A kept copy, for `sightings show`; nil when none has this id.
    static func evidence(id: String, in db: any SQLDatabase) async throws -> SightingLookup.Found? {
        guard let row = try await db.raw("SELECT * FROM sealed_evidence WHERE sighting_id = \(bind: id)").first() else { return nil }
        var sighting = try JSONDecoder().decode(SightingRecord.self, from: Data(try row.decode(column: "sighting", as: String.self).utf8))
        sighting.heldForReview = true
        return SightingLookup.Found(sighting: sighting, bikeName: try row.decode(column: "bike_name", as: String.self),
                                    bikeOwnerEmail: try row.decode(column: "owner_email", as: String.self),
                                    sentinelOwnerEmail: try row.decode(column: "sentinel_owner_email", as: String?.self),
                                    sealedCase: try row.decode(column: "case_id", as: String.self))
    }

    /// Deletes a case's sealed sightings and kept copies and marks its reports purged; how many sightings went.
    static func purge(caseID: String, now: Int64, in db: any SQLDatabase) async throws -> Int {
        let stored = try await db.raw("DELETE FROM sightings WHERE sealed_case = \(bind: caseID) RETURNING id").all().count
        let kept = try await db.raw("DELETE FROM sealed_evidence WHERE case_id = \(bind: caseID) RETURNING sighting_id").all().count
        try await db.raw("UPDATE abuse_reports SET purged_ms = \(bind: now) WHERE case_id = \(bind: caseID)").run()
        return stored + kept
    }

    /// Purges every case closed more than `retention` milliseconds ago (`serve --sealed-retention-days`); the cases purged.
    static func expire(retention: Int64, now: Int64, database: Database) async throws -> [String] {
        let due = try await database.withSession { db in
            try await db.raw("""
                SELECT DISTINCT case_id FROM abuse_reports
                WHERE status = 'closed' AND case_id IS NOT NULL AND purged_ms IS NULL AND resolved_ms <= \(bind: now - retention)
                """).all().map { try $0.decode(column: "case_id", as: String.self) }
        }
        for caseID in due {
            _ = try await database.transaction { db in try await purge(caseID: caseID, now: now, in: db) }
        }
        return due
    }
}

extension OwnerNotification {
    /// Whether it says where the bike was: such a notification still queued stops when the bike is sealed.
    var carriesPlace: Bool { place != nil || latitude != nil }
}
