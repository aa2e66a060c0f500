import Beacon
import Foundation
import Registry
import SQLKit

/// The versioned missing list: which beacons sentinels watch for, and what changed between versions.
///
/// Every change bumps one counter row in the same transaction as the change itself, so several
/// servers on one PostgreSQL hand out one consistent, monotonically increasing version.
struct MissingListStore: Sendable {
    let database: Database
    /// How many versions of change log are kept; a sentinel further behind gets the full list.
    let retention: Int64

    /// Records that these beacons' entries changed (added, removed or re-described) and returns the new version.
    /// Call inside the transaction that makes the change.
    @discardableResult
    func recordChange(of beacons: [BeaconID], in db: any SQLDatabase) async throws -> Int64 {
        try await db.raw("UPDATE missing_version SET version = version + 1 WHERE id = 1").run()
        let version = try await currentVersion(in: db)
        for beacon in Set(beacons) {
            try await db.raw("""
                INSERT INTO missing_changes (version, beacon_uuid, beacon_major, beacon_minor)
                VALUES (\(bind: version), \(bind: beacon.uuid.uuidString), \(bind: Int(beacon.major)), \(bind: Int(beacon.minor)))
                """).run()
        }
        try await db.raw("DELETE FROM missing_changes WHERE version <= \(bind: version - retention)").run()
        return version
    }

    func currentVersion(in db: any SQLDatabase) async throws -> Int64 {
        try await db.raw("SELECT version FROM missing_version WHERE id = 1").first()?.decode(column: "version", as: Int64.self) ?? 0
    }

    func version() async throws -> Int64 {
        try await database.withSession { try await currentVersion(in: $0) }
    }

    /// The whole list. The version is read first, so the list is never older than the version it claims.
    func full() async throws -> (version: Int64, bikes: [MissingBike]) {
        try await database.withSession { db in
            let version = try await currentVersion(in: db)
            let rows = try await db.raw("""
                SELECT beacon_uuid, beacon_major, beacon_minor, make, model, colour FROM bikes
                WHERE missing_since_ms IS NOT NULL ORDER BY beacon_uuid, beacon_major, beacon_minor
                """).all()
            return (version, try rows.compactMap(Self.missingBike))
        }
    }

    /// What changed after `since`, or nil when `since` is too old (or from the future) to answer with a delta.
    func delta(since: Int64) async throws -> MissingListDelta? {
        let retention = retention
        return try await database.withSession { db in
            let version = try await currentVersion(in: db)
            guard since <= version, since >= version - retention else { return nil }
            let rows = try await db.raw("""
                SELECT c.beacon_uuid AS beacon_uuid, c.beacon_major AS beacon_major, c.beacon_minor AS beacon_minor,
                       b.make AS make, b.model AS model, b.colour AS colour
                FROM (SELECT DISTINCT beacon_uuid, beacon_major, beacon_minor FROM missing_changes
                      WHERE version > \(bind: since)) c
                LEFT JOIN bikes b ON b.beacon_uuid = c.beacon_uuid AND b.beacon_major = c.beacon_major
                     AND b.beacon_minor = c.beacon_minor AND b.missing_since_ms IS NOT NULL
                ORDER BY c.beacon_uuid, c.beacon_major, c.beacon_minor
                """).all()
            var added: [MissingBike] = []
            var removed: [BeaconID] = []
            for row in rows {
                if let bike = try Self.missingBike(row) {
                    added.append(bike)
                } else if let beacon = try Self.beacon(row) {
                    removed.append(beacon)
                }
            }
            return MissingListDelta(since: since, version: version, added: added, removed: removed)
        }
    }

    static func beacon(_ row: any SQLRow) throws -> BeaconID? {
        guard let uuid = UUID(uuidString: try row.decode(column: "beacon_uuid", as: String.self)),
              let major = UInt16(exactly: try row.decode(column: "beacon_major", as: Int.self)),
              let minor = UInt16(exactly: try row.decode(column: "beacon_minor", as: Int.self))
        else { return nil }
        return BeaconID(uuid: uuid, major: major, minor: minor)
    }

    static func missingBike(_ row: any SQLRow) throws -> MissingBike? {
        guard let beacon = try beacon(row),
              let make = try row.decode(column: "make", as: String?.self),
              let model = try row.decode(column: "model", as: String?.self),
              let colour = try row.decode(column: "colour", as: String?.self)
        else { return nil }
        return MissingBike(beacon: beacon, description: BikeDescription(make: make, model: model, colour: colour))
    }
}
