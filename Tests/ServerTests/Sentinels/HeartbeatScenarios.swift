import BikebeaconAPI
import Foundation
import HTTPTypes
import HummingbirdTesting
import SQLKit
import Testing
import TestSupport
@testable import Server

/// Heartbeats on the missing-list refresh, the states the server judges from them, and their
/// transitions: stored once, on the owner's event stream, in the metrics and the CLI's views.
enum HeartbeatScenarios {
    static let header = HTTPField.Name(SentinelHeartbeat.headerName)!

    static func text(_ beat: SentinelHeartbeat) throws -> String { String(decoding: try JSONEncoder().encode(beat), as: UTF8.self) }

    static func refresh(_ client: Client, _ token: String, _ value: String, etag: String? = nil) async throws -> TestResponse {
        var headers: HTTPFields = [header: value]
        if let etag { headers[.ifNoneMatch] = etag }
        return try await client.send(.get, "/v1/missing", token: token, headers: headers)
    }

    static func transitions(_ harness: Harness, _ id: String) async throws -> [SentinelTransition] {
        try await SentinelHealthStore(database: harness.database).transitions(sentinelID: id)
    }

    static func statesAndTransitions(_ backend: Backend) async throws {
        let clock = PushScenarios.Clock()
        let harness = try await Harness.make(backend, options: Harness.testOptions {
            $0.now = clock.read
            $0.sentinelSweepInterval = .seconds(3600)  // the test sweeps itself, at the times it chooses
        })
        let store = SentinelHealthStore(database: harness.database)
        let (cafe, cafeToken) = try await harness.sentinel("Cafe Rosa")
        let serverMetrics = ServerMetrics()
        try await harness.run(metrics: serverMetrics) { client in
            let ann = try await client.owner("ann@example.org")
            let (home, homeToken) = try await SentinelStore(database: harness.database).add(
                name: "Ann's garage", latitude: 52.09, longitude: 5.12, ownerEmail: "ann@example.org", now: clock.read())
            let healthy = SentinelHealthTests.healthy

            // Without the header the list is served as before, and nothing is stored.
            #expect(try await client.send(.get, "/v1/missing", token: cafeToken).status == .ok)
            #expect(try await store.all().isEmpty)

            // The first heartbeat: listening, one transition.
            let first = try await refresh(client, cafeToken, try text(healthy))
            #expect(first.status == .ok)
            let etag = try #require(first.headers[.eTag])
            #expect(try await store.all()[cafe.id]?.state == .listening)
            #expect(try await transitions(harness, cafe.id).map(\.to) == [.listening])

            // Steady state: a minute later, on a 304, the heartbeat is stored in place; no new transition.
            clock.advance(60_000)
            var later = healthy
            later.reports = 1200
            #expect(try await refresh(client, cafeToken, try text(later), etag: etag).status == .notModified)
            let stored = try #require(try await store.all()[cafe.id])
            #expect(stored.heartbeat == later && stored.receivedMilliseconds == clock.read() && stored.state == .listening)
            #expect(try await transitions(harness, cafe.id).count == 1)

            // Degraded, with its reason; the home sentinel's owner sees it on the event stream.
            #expect(try await refresh(client, homeToken, try text(healthy)).status == .ok)
            var stopped = healthy
            stopped.scanning = false
            clock.advance(60_000)
            #expect(try await refresh(client, homeToken, try text(stopped)).status == .ok)
            let homeHealth = try #require(try await store.all()[home.id])
            #expect(homeHealth.state == .degraded && homeHealth.reason == "not scanning")
            let account = try #require(try await harness.database.withSession { db in
                try await db.raw("SELECT owner_id FROM sentinels WHERE id = \(bind: home.id)").first()?.decode(column: "owner_id", as: String?.self)
            })
            let events = try await EventStore.events(account: account, after: 0, limit: 10, database: harness.database)
            #expect(events.map(\.kind) == ["sentinel", "sentinel"])
            let degraded = try JSONDecoder().decode(SentinelStateEvent.self, from: Data(try #require(events.last).payload.utf8))
            #expect(degraded.state == "degraded" && degraded.previous == "listening" && degraded.reason == "not scanning"
                && degraded.sentinel == "Ann's garage")
            _ = ann

            // Silence: measured from the server's receipt, noticed by the sweep, recorded once.
            clock.advance(5 * 60_000)
            #expect(try await store.sweep(now: clock.read()).sorted() == [account])
            #expect(try await store.sweep(now: clock.read()).isEmpty)
            let afterSilence = try await store.all()
            #expect(afterSilence[cafe.id]?.state == .silent && afterSilence[home.id]?.state == .silent)
            #expect(try await transitions(harness, cafe.id).map(\.to) == [.silent, .listening])
            #expect(try await transitions(harness, cafe.id).first?.reason == "no heartbeat for 6 min")

            // Metrics count the states; a heartbeat brings the sentinel back.
            let metrics = try await harness.scrape(serverMetrics)
            #expect(metrics.contains(#"bikebeacon_sentinels{state="silent"} 2"#), "\(metrics)")
            #expect(metrics.contains(#"bikebeacon_sentinels{state="listening"} 0"#))
            #expect(try await refresh(client, cafeToken, try text(healthy)).status == .ok)
            #expect(try await transitions(harness, cafe.id).map(\.to) == [.listening, .silent, .listening])
            #expect(try await harness.scrape(serverMetrics).contains(#"bikebeacon_sentinels{state="listening"} 1"#))

            // Revoked: retired at once, its heartbeat refused with 401, and it stays retired.
            try await SentinelStore(database: harness.database).revoke(name: "Ann's garage", now: clock.read())
            #expect(try await store.all()[home.id]?.state == .retired)
            expectError(try await refresh(client, homeToken, try text(healthy)), .unauthorized, "revoked")
            clock.advance(10 * 60_000)
            _ = try await store.sweep(now: clock.read())
            #expect(try await store.all()[home.id]?.state == .retired)
            #expect(try await transitions(harness, home.id).map(\.to) == [.retired, .silent, .degraded, .listening])
        }
    }

    static func badHeartbeats(_ backend: Backend) async throws {
        let harness = try await Harness.make(backend)
        let store = SentinelHealthStore(database: harness.database)
        let (cafe, cafeToken) = try await harness.sentinel("Cafe Rosa")
        let (other, _) = try await harness.sentinel("Station", latitude: 52.1, longitude: 5.1)
        try await harness.run { client in
            let healthy = try text(SentinelHealthTests.healthy)
            func refused(_ value: String, naming field: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
                let response = try await refresh(client, cafeToken, value)
                expectError(response, .badRequest, "invalid_heartbeat", sourceLocation: sourceLocation)
                #expect(String(buffer: response.body).contains(field), "\(String(buffer: response.body))", sourceLocation: sourceLocation)
            }
            try await refused(healthy.replacingOccurrences(of: #""reports":900"#, with: #""reports":-1"#), naming: "reports")
            try await refused(healthy.replacingOccurrences(of: #""reports":900"#, with: #""reports":"many""#), naming: "reports")
            try await refused(healthy.replacingOccurrences(of: #""uptimeSeconds":3600"#, with: #""uptimeSeconds":1e12"#), naming: "uptimeSeconds")
            // Removed as a key, not as text: the encoder's key order differs from run to run, so "version" may be the last key.
            let noVersion = try #require(try JSONSerialization.jsonObject(with: Data(healthy.utf8)) as? [String: Any]).filter { $0.key != "version" }
            try await refused(String(decoding: try JSONSerialization.data(withJSONObject: noVersion), as: UTF8.self), naming: "version")
            try await refused(healthy.replacingOccurrences(of: #""scanning":true"#, with: #""scanning":"yes""#), naming: "scanning")
            try await refused(healthy.replacingOccurrences(of: #""clockOffsetSeconds":0.4"#, with: #""clockOffsetSeconds":1e300"#),
                              naming: "clockOffsetSeconds")
            try await refused("not json", naming: "JSON")
            try await refused("{\"pad\":\"" + String(repeating: "x", count: 5000) + "\"," + healthy.dropFirst(), naming: "4096")
            #expect(try await store.all().isEmpty)

            // Unknown fields are ignored, and one naming another sentinel speaks only for the token's own.
            let foreign = "{\"sentinelId\":\"\(other.id)\",\"name\":\"Station\",\"futureField\":{\"x\":1}," + healthy.dropFirst()
            #expect(try await refresh(client, cafeToken, foreign).status == .ok)
            let health = try await store.all()
            #expect(health[cafe.id]?.heartbeat == SentinelHealthTests.healthy && health[other.id] == nil)
        }
    }

    /// Replicas on one database that judge the same change record it once: several sweeps at once,
    /// each on its own connection pool, as separate server processes would.
    static func oneTransitionAcrossReplicas(_ backend: Backend) async throws {
        let harness = try await Harness.make(backend)
        let (cafe, _) = try await harness.sentinel("Cafe Rosa")
        let start = harness.options.now()
        try await SentinelHealthStore(database: harness.database).record(SentinelHealthTests.healthy, from: cafe, now: start)
        // SQLite has one writer anyway; there the sweeps interleave on the one connection.
        try await harness.withOtherPools(4, onSQLite: false, maxConnections: 2) { replicas in
            let notified = try await withThrowingTaskGroup(of: Int.self) { group in
                for replica in replicas {
                    group.addTask { try await SentinelHealthStore(database: replica).sweep(now: start + 400_000).count + 1 }
                }
                return try await group.reduce(0, +)
            }
            #expect(notified == 4)  // a public sentinel notifies no one; every sweep finished
            let to = try await SentinelHealthStore(database: harness.database).transitions(sentinelID: cafe.id).map(\.to)
            #expect(to == [.silent, .listening])
        }
    }

    /// After a restart the states are judged again from the stored heartbeats (the sweep's first pass).
    static func recomputedAfterRestart(_ backend: Backend) async throws {
        let clock = PushScenarios.Clock()
        let harness = try await Harness.make(backend, options: Harness.testOptions { $0.now = clock.read })
        let (cafe, token) = try await harness.sentinel("Cafe Rosa")
        try await harness.run(keepDatabase: true) { client in
            let response = try await refresh(client, token, try text(SentinelHealthTests.healthy))
            #expect(response.status == .ok)
        }
        clock.advance(20 * 60_000)
        try await harness.run { _ in
            let silent = try await eventually { try await SentinelHealthStore(database: harness.database).all()[cafe.id]?.state == .silent }
            #expect(silent)
        }
    }
}
