import BikebeaconAPI
import Foundation
import SQLKit

/// "Find my tag": an owner asks their home sentinel to report the tags it hears for two minutes;
/// it does so only then, and only its owner reads them. Nothing is kept once the window is over
/// and a new one starts.
struct NearbyStore: Sendable {
    let database: Database

    /// How long one request makes the sentinel listen.
    static let window: Int64 = 120_000
    /// The most tags one report may hold (the loudest, as the sentinel sends them).
    static let maxBeacons = 100

    /// The owner's home sentinels, by name.
    func sentinels(owner: String, now: Int64) async throws -> [HomeSentinel] {
        try await database.withSession { db in
            try await db.raw("""
                SELECT id, name, listen_until_ms FROM sentinels
                WHERE owner_id = \(bind: owner) AND revoked_ms IS NULL ORDER BY name
                """).all().map { try Self.home($0, now: now) }
        }
    }

    /// Starts (or extends) a listening window on the owner's sentinel, forgetting what an earlier one heard; nil when it is not theirs.
    func listen(sentinelID: String, owner: String, now: Int64) async throws -> HomeSentinel? {
        try await database.transaction { db in
            guard let row = try await db.raw("""
                SELECT id, name, listen_until_ms FROM sentinels
                WHERE id = \(bind: sentinelID) AND owner_id = \(bind: owner) AND revoked_ms IS NULL
                """).first() else { return nil }
            let until = try row.decode(column: "listen_until_ms", as: Int64?.self)
            if until.map({ $0 <= now }) ?? true {
                try await db.raw("DELETE FROM nearby_beacons WHERE sentinel_id = \(bind: sentinelID)").run()
            }
            try await db.raw("UPDATE sentinels SET listen_until_ms = \(bind: now + Self.window) WHERE id = \(bind: sentinelID)").run()
            return HomeSentinel(id: sentinelID, name: try row.decode(column: "name", as: String.self),
                                listeningUntil: Timestamp.format(milliseconds: now + Self.window))
        }
    }

    /// Ends the window at once (the owner found their tag) and forgets what was heard; false when the sentinel is not theirs.
    func stop(sentinelID: String, owner: String) async throws -> Bool {
        try await database.transaction { db in
            guard try await db.raw("""
                SELECT id FROM sentinels WHERE id = \(bind: sentinelID) AND owner_id = \(bind: owner)
                """).first() != nil else { return false }
            try await db.raw("UPDATE sentinels SET listen_until_ms = NULL WHERE id = \(bind: sentinelID)").run()
            try await db.raw("DELETE FROM nearby_beacons WHERE sentinel_id = \(bind: sentinelID)").run()
            return true
        }
    }

    /// Whether a sentinel is asked to listen now: nil when it is no owner's home sentinel (it is never asked).
    func listening(sentinelID: String, now: Int64) async throws -> Int64?? {
        try await database.withSession { try await Self.listening(sentinelID: sentinelID, now: now, in: $0) }
    }

    private static func listening(sentinelID: String, now: Int64, in db: any SQLDatabase) async throws -> Int64?? {
        guard let row = try await db.raw("""
            SELECT listen_until_ms FROM sentinels WHERE id = \(bind: sentinelID) AND owner_id IS NOT NULL
            """).first() else { return nil }
        let until = try row.decode(column: "listen_until_ms", as: Int64?.self)
        return .some(until.flatMap { $0 > now ? $0 : nil })
    }

    /// Takes a sentinel's report while it is asked to listen; false (nothing stored) when it is not.
    func record(_ report: NearbyReport, sentinelID: String, now: Int64) async throws -> Bool {
        try await database.transaction { db in
            guard let window = try await Self.listening(sentinelID: sentinelID, now: now, in: db), window != nil else { return false }
            for heard in report.beacons {
                try await db.raw("""
                    INSERT INTO nearby_beacons (sentinel_id, beacon_uuid, beacon_major, beacon_minor, rssi, count, heard_ms)
                    VALUES (\(bind: sentinelID), \(bind: heard.beacon.uuid.uuidString), \(bind: Int(heard.beacon.major)),
                      \(bind: Int(heard.beacon.minor)), \(bind: heard.rssi), \(bind: heard.count), \(bind: now))
                    ON CONFLICT (sentinel_id, beacon_uuid, beacon_major, beacon_minor)
                    DO UPDATE SET rssi = excluded.rssi, count = excluded.count, heard_ms = excluded.heard_ms
                    """).run()
            }
            return true
        }
    }

    /// What the owner's sentinel heard in this window, loudest first, each tag named by the owner's bike it is on; nil when not theirs.
    func nearby(sentinelID: String, owner: String, now: Int64) async throws -> NearbyBeacons? {
        try await database.withSession { db in
            guard let row = try await db.raw("""
                SELECT id, name, listen_until_ms FROM sentinels
                WHERE id = \(bind: sentinelID) AND owner_id = \(bind: owner) AND revoked_ms IS NULL
                """).first() else { return nil }
            let home = try Self.home(row, now: now)
            // Over: what a sentinel heard in a home was for the minutes its owner asked, and no longer.
            guard home.listeningUntil != nil else {
                try await db.raw("DELETE FROM nearby_beacons WHERE sentinel_id = \(bind: sentinelID)").run()
                return NearbyBeacons(listeningUntil: nil, beacons: [])
            }
            let beacons = try await db.raw("""
                SELECT n.beacon_uuid, n.beacon_major, n.beacon_minor, n.rssi, n.count, n.heard_ms, b.name AS bike
                FROM nearby_beacons n LEFT JOIN bikes b ON b.owner_id = \(bind: owner) AND b.beacon_uuid = n.beacon_uuid
                  AND b.beacon_major = n.beacon_major AND b.beacon_minor = n.beacon_minor
                WHERE n.sentinel_id = \(bind: sentinelID) ORDER BY n.rssi DESC, n.beacon_uuid, n.beacon_major, n.beacon_minor
                """).all().map { row -> NearbyBeacon in
                guard let beacon = try MissingListStore.beacon(row) else {
                    throw StorageError.corruptRow("a nearby beacon's identity cannot be read back")
                }
                return NearbyBeacon(beacon: beacon, rssi: try row.decode(column: "rssi", as: Int.self),
                                    count: try row.decode(column: "count", as: Int.self),
                                    heardAt: Timestamp.format(milliseconds: try row.decode(column: "heard_ms", as: Int64.self)),
                                    bike: try row.decode(column: "bike", as: String?.self))
            }
            return NearbyBeacons(listeningUntil: home.listeningUntil, beacons: beacons)
        }
    }

    private static func home(_ row: any SQLRow, now: Int64) throws -> HomeSentinel {
        let until = try row.decode(column: "listen_until_ms", as: Int64?.self)
        return HomeSentinel(id: try row.decode(column: "id", as: String.self), name: try row.decode(column: "name", as: String.self),
                            listeningUntil: until.flatMap { $0 > now ? Timestamp.format(milliseconds: $0) : nil })
    }
}
