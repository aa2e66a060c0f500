import BikebeaconAPI
import Foundation
import SQLKit
import Testing
@testable import Server

/// The owners' coverage map (#34, goal 5): only public sentinels at a fixed place whose host opted
/// in, each listening or not; never a home, roaming or retired sentinel, whatever its flag says.
enum CoverageMapScenarios {
    static func optIn(_ backend: Backend) async throws {
        let harness = try await Harness.make(backend)
        let sentinels = SentinelStore(database: harness.database)
        let now = harness.options.now()
        // Opted in at enrolment, at a place given to 6 decimals.
        let (_, cafe) = try await sentinels.add(name: "Cafe Rosa", latitude: 52.090712, longitude: 5.121449, onCoverageMap: true, now: Fixture.enrolled)
        // Not opted in: the default.
        let (station, stationToken) = try await harness.sentinel("Station", latitude: 52.0952, longitude: 5.1214)
        #expect(!station.onCoverageMap)
        let (_, mill) = try await sentinels.add(name: "Old Mill", latitude: 52.08, longitude: 5.11, onCoverageMap: true, now: Fixture.enrolled)
        #expect(mill.hasPrefix("bbs_"))
        let (bus, _) = try await sentinels.add(name: "Bus line 12", latitude: nil, longitude: nil, now: Fixture.enrolled)

        try await harness.run { client in
            let ann = try await client.owner("ann@example.org")
            let olga = try await client.owner("olga@example.org")
            try await OperatorStore(database: harness.database).add(email: "olga@example.org", now: now)
            let (home, _) = try await sentinels.add(name: "Ann's garage, 12 Elm St", latitude: 52.0911, longitude: 5.1222,
                                                    ownerEmail: "ann@example.org", now: Fixture.enrolled)

            func map(_ token: String = ann) async throws -> [CoverageMapSentinel] {
                let response = try await client.send(.get, "/v1/network/coverage", token: token)
                #expect(response.status == .ok, "\(String(buffer: response.body))")
                #expect(!String(buffer: response.body).contains("Ann") && !String(buffer: response.body).contains("Bus"))
                return try client.decode(CoverageMap.self, response).sentinels
            }

            // Any account reads it (an operator too); a sentinel's token and no account do not.
            expectError(try await client.send(.get, "/v1/network/coverage"), .unauthorized)
            expectError(try await client.send(.get, "/v1/network/coverage", token: cafe), .forbidden)

            // Opted in, to 4 decimals, not listening before its first heartbeat; the station is not on it.
            #expect(try await map() == [CoverageMapSentinel(name: "Cafe Rosa", latitude: 52.0907, longitude: 5.1214, listening: false),
                                        CoverageMapSentinel(name: "Old Mill", latitude: 52.08, longitude: 5.11, listening: false)])
            #expect(try await HeartbeatScenarios.refresh(client, cafe, try HeartbeatScenarios.text(SentinelHealthTests.healthy)).status == .ok)
            var deaf = SentinelHealthTests.healthy
            deaf.scanning = false
            #expect(try await HeartbeatScenarios.refresh(client, stationToken, try HeartbeatScenarios.text(deaf)).status == .ok)
            #expect(try await map(olga).map(\.listening) == [true, false])

            // The station's host agrees; then changes their mind.
            try await sentinels.setCoverageMap(name: "Station", on: true)
            #expect(try await map().map(\.name) == ["Cafe Rosa", "Old Mill", "Station"])
            #expect(try await map().last == CoverageMapSentinel(name: "Station", latitude: 52.0952, longitude: 5.1214, listening: false))
            let network = try client.decode(NetworkSentinelList.self, try await client.send(.get, "/v1/network/sentinels", token: olga)).sentinels
            #expect(network.filter(\.onCoverageMap).map(\.name) == ["Cafe Rosa", "Old Mill", "Station"])
            try await sentinels.setCoverageMap(name: "Station", on: false)
            #expect(try await map().map(\.name) == ["Cafe Rosa", "Old Mill"])

            // A revoked sentinel leaves the map.
            try await sentinels.revoke(name: "Old Mill", now: now)
            #expect(try await map().map(\.name) == ["Cafe Rosa"])
            await #expect(throws: SentinelError.invalid("'Old Mill' was revoked: it no longer listens anywhere")) {
                try await sentinels.setCoverageMap(name: "Old Mill", on: true)
            }

            // A home or roaming sentinel cannot be put on it...
            await #expect(throws: SentinelError.invalid("'Ann's garage, 12 Elm St' is a home sentinel: it never appears on the coverage map")) {
                try await sentinels.setCoverageMap(name: home.name, on: true)
            }
            await #expect(throws: SentinelError.self) {
                try await sentinels.add(name: "Bob's shed", latitude: 52.1, longitude: 5.1, ownerEmail: "olga@example.org", onCoverageMap: true, now: now)
            }
            await #expect(throws: SentinelError.invalid("'Bus line 12' is a roaming sentinel: it has no place to show on the coverage map")) {
                try await sentinels.setCoverageMap(name: bus.name, on: true)
            }
            await #expect(throws: SentinelError.self) {
                try await sentinels.add(name: "Tram 4", latitude: nil, longitude: nil, onCoverageMap: true, now: now)
            }
            #expect(try await sentinels.list().first { $0.name == "Bob's shed" || $0.name == "Tram 4" } == nil)
            // ...and, flagged behind the store's back (a hand-edited database), still never appears.
            try await harness.database.withSession { db in
                try await db.raw("UPDATE sentinels SET on_coverage_map = 1 WHERE id IN (\(bind: home.id), \(bind: bus.id))").run()
            }
            #expect(try await map().map(\.name) == ["Cafe Rosa"])
            await #expect(throws: SentinelError.notFound("Nowhere")) { try await sentinels.setCoverageMap(name: "Nowhere", on: false) }
        }
    }
}
