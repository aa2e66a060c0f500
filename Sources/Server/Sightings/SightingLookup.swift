import BikebeaconAPI
import SQLKit

/// The operator's look-up of one sighting by the reference a theft report quotes (its id): the
/// sentinel's name and exact place, which owners other than the sentinel's own, share links and
/// reports never show (`SightingPrivacy`), for the police on request.
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

        /// One fact per line, for the terminal.
        public var report: String {
            let s = sighting
            let position = s.latitude.flatMap { lat in s.longitude.map { "\(lat), \($0)" } } ?? "none (a roaming sentinel without a fix)"
            return """
                sighting \(s.id) (the sentinel's id \(s.clientId))
                bike: \(bikeName) (\(s.bikeId)), owner \(bikeOwnerEmail), tag \(s.beacon.description)
                event: \(s.event) at \(s.time) (first seen \(s.firstSeen), last seen \(s.lastSeen)), received \(s.receivedAt)
                sentinel: \(s.sentinel)\(sentinelOwnerEmail.map { " (the home sentinel of \($0))" } ?? "")
                exact position: \(position)\(s.fix == "gps" ? " (its GPS fix\(s.accuracy.map { ", ±\($0) m" } ?? "")\(s.fixTime.map { ", at \($0)" } ?? ""))" : "")
                signal: \(s.rssi) dBm, zone \(s.zone)\(s.distance.map { ", about \($0) m" } ?? "")
                """
        }
    }

    public func find(id: String) async throws -> Found? {
        guard !id.isEmpty, id.count <= 64 else { return nil }
        return try await database.withSession { db in
            guard let row = try await db.raw("""
                SELECT s.*, t.name AS sentinel_name, b.name AS bike_name, a.email AS owner_email, h.email AS sentinel_owner_email
                FROM sightings s JOIN sentinels t ON t.id = s.sentinel_id JOIN bikes b ON b.id = s.bike_id
                JOIN accounts a ON a.id = b.owner_id LEFT JOIN accounts h ON h.id = t.owner_id
                WHERE s.id = \(bind: id)
                """).first() else { return nil }
            return Found(sighting: try SightingStore.exact(row), bikeName: try row.decode(column: "bike_name", as: String.self),
                         bikeOwnerEmail: try row.decode(column: "owner_email", as: String.self),
                         sentinelOwnerEmail: try row.decode(column: "sentinel_owner_email", as: String?.self))
        }
    }
}
