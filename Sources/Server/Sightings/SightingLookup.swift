import BikebeaconAPI
import SQLKit

/// The operator's look-up of one sighting by the reference a theft report quotes (its id): the
/// sentinel's name and exact place, which owners other than the sentinel's own, share links and
/// reports never show (`SightingPrivacy`), for the police on request. It finds sealed sightings too (#43: a report's
/// case keeps them from the owner, not from the police), also after their bike or account was deleted
/// (`SightingSeal.keepEvidence`); every look-up is logged in the read log as the operator's.
public struct SightingLookup: Sendable {
    let database: Database

    public init(database: Database) { self.database = database }

    /// The sighting as heard, with the bike's and the sentinel's owners; nil for an unknown reference.
    public struct Found: Sendable, Equatable {
        public var sighting: SightingRecord
        public var bikeName: String
        public var bikeOwnerEmail: String
        /// The account whose home sentinel heard it; nil for a public sentinel.
        public var sentinelOwnerEmail: String?
        /// The report case it was stored under while the bike was sealed; nil for one stored unsealed.
        public var sealedCase: String? = nil

        /// One fact per line, for the terminal.
        public var report: String {
            let s = sighting
            let position = s.latitude.flatMap { lat in s.longitude.map { "\(lat), \($0)" } } ?? "none (a roaming sentinel without a fix)"
            return """
                sighting \(s.id) (the sentinel's id \(s.clientId))
                bike: \(bikeName) (\(s.bikeId)), owner \(bikeOwnerEmail), tag \(s.beacon.description)
                event: \(s.event) at \(s.time) (first seen \(s.firstSeen), last seen \(s.lastSeen)), received \(s.receivedAt)
                sentinel: \(s.sentinel)\(sentinelOwnerEmail.map { " (the home sentinel of \($0))" } ?? "")
                \(sealedCase.map { "sealed: stored while report case \($0) sealed the bike (its read is logged)\n" } ?? "")exact position: \(position)\(s.fix == "gps" ? " (its GPS fix\(s.accuracy.map { ", ±\($0) m" } ?? "")\(s.fixTime.map { ", at \($0)" } ?? ""))" : "")
                signal: \(s.rssi) dBm, zone \(s.zone)\(s.distance.map { ", about \($0) m" } ?? "")
                """
        }
    }

    public func find(id: String, now: Int64 = ServerOptions.wallClock()) async throws -> Found? {
        guard !id.isEmpty, id.count <= 64 else { return nil }
        return try await database.withSession { db in
            var kept = try await stored(id: id, in: db)
            if kept == nil { kept = try await SightingSeal.evidence(id: id, in: db) }
            guard let found = kept else { return nil }
            let owner = try await db.raw("""
                SELECT owner_id FROM bikes WHERE id = \(bind: found.sighting.bikeId)
                UNION ALL SELECT owner_id FROM abuse_reports WHERE case_id = \(bind: found.sealedCase ?? "")
                """).first()?.decode(column: "owner_id", as: String.self) ?? ""
            // Each look-up its own row (the bucket is the millisecond): a sealed sighting's every read is on record.
            try await db.raw("""
                INSERT INTO sighting_reads (bike_id, owner_id, reader, route, client, bucket, time_ms)
                VALUES (\(bind: found.sighting.bikeId), \(bind: owner), 'operator', \(bind: Self.route), 'local', \(bind: now), \(bind: now))
                ON CONFLICT DO NOTHING
                """).run()
            return found
        }
    }

    /// How the read log names this look-up.
    static let route = "bikebeacon-server sightings show"

    private func stored(id: String, in db: any SQLDatabase) async throws -> Found? {
        guard let row = try await db.raw("""
            SELECT s.*, t.name AS sentinel_name, b.name AS bike_name, a.email AS owner_email, h.email AS sentinel_owner_email
            FROM sightings s JOIN sentinels t ON t.id = s.sentinel_id JOIN bikes b ON b.id = s.bike_id
            JOIN accounts a ON a.id = b.owner_id LEFT JOIN accounts h ON h.id = t.owner_id
            WHERE s.id = \(bind: id)
            """).first() else { return nil }
        return Found(sighting: try SightingStore.exact(row), bikeName: try row.decode(column: "bike_name", as: String.self),
                     bikeOwnerEmail: try row.decode(column: "owner_email", as: String.self),
                     sentinelOwnerEmail: try row.decode(column: "sentinel_owner_email", as: String?.self),
                     sealedCase: try row.decode(column: "sealed_case", as: String?.self))
    }
}
