import Foundation
import SQLKit
import Server

/// The baseline for the ingest benchmark: how fast this database takes sighting-shaped rows
/// straight through sql-kit, in transactions of one batch each, with no HTTP, JSON or checks.
enum RawInsertBenchmark {
    struct Result: Sendable {
        var rows: Int
        var seconds: Double
        var rowsPerSecond: Double { Double(rows) / seconds }
    }

    static func run(on database: Database, rows: Int, batch: Int) async throws -> Result {
        try await database.withSession { db in
            try await db.raw("DROP TABLE IF EXISTS bench_sightings").run()
            // The same columns, key and index as `sightings`, without the foreign keys.
            try await db.raw("""
                CREATE TABLE bench_sightings (id TEXT PRIMARY KEY, sentinel_id TEXT NOT NULL, client_id TEXT NOT NULL,
                  bike_id TEXT NOT NULL, beacon_uuid TEXT NOT NULL, beacon_major BIGINT NOT NULL, beacon_minor BIGINT NOT NULL,
                  event TEXT NOT NULL, time_ms BIGINT NOT NULL, first_seen_ms BIGINT NOT NULL, last_seen_ms BIGINT NOT NULL,
                  rssi BIGINT NOT NULL, distance DOUBLE PRECISION, zone TEXT NOT NULL, latitude DOUBLE PRECISION NOT NULL,
                  longitude DOUBLE PRECISION NOT NULL, received_ms BIGINT NOT NULL, UNIQUE (sentinel_id, client_id))
                """).run()
            try await db.raw("CREATE INDEX bench_sightings_bike_time ON bench_sightings (bike_id, time_ms, id)").run()
        }
        let start = ContinuousClock.now
        var written = 0
        while written < rows {
            let count = min(batch, rows - written)
            let first = written
            try await database.transaction { db in
                let insert = db.insert(into: "bench_sightings").columns(
                    "id", "sentinel_id", "client_id", "bike_id", "beacon_uuid", "beacon_major", "beacon_minor", "event",
                    "time_ms", "first_seen_ms", "last_seen_ms", "rssi", "distance", "zone", "latitude", "longitude", "received_ms")
                for i in first..<(first + count) {
                    let time = Int64(1_795_000_000_000 + i)
                    insert.values([
                        Self.id(), "bench-sentinel", Self.id(), "bike-\(i % 50)", "B5B182C7-EAB1-4988-AA99-B5C1517008D9",
                        1, i % 50, "present", time, time, time, -67, 2.5, "near", 51.5, -0.12, time,
                    ] as [any Encodable & Sendable])
                }
                try await insert.run()
            }
            written += count
        }
        let elapsed = ContinuousClock.now - start
        try await database.withSession { try await $0.raw("DROP TABLE bench_sightings").run() }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Result(rows: written, seconds: seconds)
    }

    /// Row ids shaped like the server's (`Tokens.id`), so the baseline pays the same per-row cost.
    private static func id() -> String { UUID().uuidString.lowercased() }
}
