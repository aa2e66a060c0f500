import BikebeaconAPI
import Foundation
import Testing
@testable import Server

/// The operator's network view: every sentinel with its state, for operators only.
enum NetworkScenarios {
    static func operatorView(_ backend: Backend) async throws {
        let harness = try await Harness.make(backend)
        let (cafe, cafeToken) = try await harness.sentinel("Cafe Rosa")
        let (station, stationToken) = try await harness.sentinel("Station", latitude: 52.1, longitude: 5.1)
        let (bus, _) = try await SentinelStore(database: harness.database).add(name: "Bus line 12", latitude: nil, longitude: nil,
                                                                                now: harness.options.now())
        try await harness.run { client in
            let ann = try await client.owner("ann@example.org")
            let olga = try await client.owner("olga@example.org")
            let operators = OperatorStore(database: harness.database)
            try await operators.add(email: " Olga@Example.org", now: harness.options.now())
            try await operators.add(email: "olga@example.org", now: harness.options.now())
            #expect(try await operators.list() == ["olga@example.org"])
            await #expect(throws: SentinelError.self) { try await operators.add(email: "nobody@example.org", now: 0) }
            let (home, _) = try await SentinelStore(database: harness.database).add(
                name: "Ann's garage", latitude: 52.09, longitude: 5.12, ownerEmail: "ann@example.org", now: harness.options.now())
            try await SentinelStore(database: harness.database).revoke(name: "Ann's garage", now: harness.options.now())

            #expect(try await HeartbeatScenarios.refresh(client, cafeToken, try HeartbeatScenarios.text(SentinelHealthTests.healthy)).status == .ok)
            var old = SentinelHealthTests.healthy
            (old.version, old.scanning) = ("0.0.9", false)
            #expect(try await HeartbeatScenarios.refresh(client, stationToken, try HeartbeatScenarios.text(old)).status == .ok)

            // Owners who are not operators, sentinels and strangers are refused.
            expectError(try await client.send(.get, "/v1/network/sentinels", token: ann), .forbidden, "forbidden")
            expectError(try await client.send(.get, "/v1/network/sentinels", token: cafeToken), .forbidden)
            expectError(try await client.send(.get, "/v1/network/sentinels"), .unauthorized)

            let all = try client.decode(NetworkSentinelList.self, try await client.send(.get, "/v1/network/sentinels", token: olga)).sentinels
            #expect(all.map(\.name) == ["Ann's garage", "Bus line 12", "Cafe Rosa", "Station"])
            #expect(all.map(\.state) == ["retired", "silent", "listening", "degraded"])
            #expect(all.map(\.id) == [home.id, bus.id, cafe.id, station.id])
            #expect(all.map(\.home) == [true, false, false, false])
            let rosa = all[2]
            #expect(rosa.version == "0.1.0" && !rosa.outdated && rosa.reportsPerMinute == 900 && rosa.clockOffsetSeconds == 0.4
                && rosa.latitude == 51.5 && rosa.lastHeartbeatAt != nil)
            #expect(all[1].latitude == nil && all[1].since == nil && all[1].reason == "no heartbeat yet")
            #expect(all[3].outdated && all[3].reason == "not scanning")

            let degraded = try client.decode(NetworkSentinelList.self,
                                             try await client.send(.get, "/v1/network/sentinels?state=degraded", token: olga)).sentinels
            #expect(degraded.map(\.name) == ["Station"])
            let outdated = try client.decode(NetworkSentinelList.self,
                                             try await client.send(.get, "/v1/network/sentinels?outdated=true", token: olga)).sentinels
            #expect(outdated.map(\.name) == ["Station"])
            let bad = try await client.send(.get, "/v1/network/sentinels?state=asleep", token: olga)
            expectError(bad, .badRequest, "invalid_request")
            #expect(String(buffer: bad.body).contains("'state'"))
            expectError(try await client.send(.get, "/v1/network/sentinels?outdated=maybe", token: olga), .badRequest)

            // Rights taken away: 403 again.
            try await operators.remove(email: "olga@example.org")
            expectError(try await client.send(.get, "/v1/network/sentinels", token: olga), .forbidden)
            await #expect(throws: SentinelError.self) { try await operators.remove(email: "olga@example.org") }
        }
    }
}
