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

            // The dashboard learns from the account whether to offer the Network page.
            #expect(try client.decode(Account.self, try await client.send(.get, "/v1/account", token: olga)).operator == true)
            #expect(try client.decode(Account.self, try await client.send(.get, "/v1/account", token: ann)).operator == false)

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

            // Ann leaves: her home sentinel stays a home sentinel (sentinels.home), its owner_id now NULL.
            #expect(try await client.send(.delete, "/v1/account", token: ann, json: AccountDeletion(password: "correct horse battery")).status == .noContent)
            let afterAnn = try client.decode(NetworkSentinelList.self, try await client.send(.get, "/v1/network/sentinels", token: olga)).sentinels
            #expect(afterAnn.first { $0.name == "Ann's garage" }?.home == true)

            // Rights taken away: 403 again.
            try await operators.remove(email: "olga@example.org")
            expectError(try await client.send(.get, "/v1/network/sentinels", token: olga), .forbidden)
            #expect(try client.decode(Account.self, try await client.send(.get, "/v1/account", token: olga)).operator == false)
            await #expect(throws: SentinelError.self) { try await operators.remove(email: "olga@example.org") }
        }
    }

    /// Operators' event streams carry every sentinel's change of state (their Network page follows
    /// them); an owner's carries only their own home sentinel's, once even when they are an operator too.
    static func operatorsStream(_ backend: Backend) async throws {
        let harness = try await Harness.make(backend)
        let (_, cafe) = try await harness.sentinel("Cafe Rosa")
        try await harness.run(.live) { client in
            let port = try #require(client.port)
            let ann = try await client.owner("ann@example.org")
            let olga = try await client.owner("olga@example.org")
            try await OperatorStore(database: harness.database).add(email: "olga@example.org", now: harness.options.now())
            let operatorStream = await readEvents(port: port, token: olga) { $0.contains("Cafe Rosa") && $0.hasSuffix("\n\n") }
            let ownerStream = await readEvents(port: port, token: ann) { $0.contains("event:") }
            let watchdog = Task {
                try await Task.sleep(for: .seconds(60))
                operatorStream.cancel()
            }
            // The cafe's first heartbeat: no state yet -> listening.
            #expect(try await HeartbeatScenarios.refresh(client, cafe, try HeartbeatScenarios.text(SentinelHealthTests.healthy)).status == .ok)
            let text = try await operatorStream.value
            watchdog.cancel()
            #expect(text.contains("event: sentinel\n"), "\(text)")
            let data = try #require(text.split(separator: "\n").first { $0.hasPrefix("data: ") })
            let event = try JSONDecoder().decode(SentinelStateEvent.self, from: Data(data.dropFirst("data: ".count).utf8))
            #expect(event.sentinel == "Cafe Rosa" && event.state == "listening" && event.previous == nil)
            try await Task.sleep(for: .milliseconds(300))
            ownerStream.cancel()
            let ownerText = try await ownerStream.value
            #expect(ownerText.hasPrefix(": connected") && !ownerText.contains("event:"), "a public sentinel is not an owner's business: \(ownerText)")

            // Ann's home sentinel, with Ann an operator too: its change reaches her once, and Olga.
            try await OperatorStore(database: harness.database).add(email: "ann@example.org", now: harness.options.now())
            let (home, homeToken) = try await SentinelStore(database: harness.database).add(
                name: "Ann's garage", latitude: 52.09, longitude: 5.12, ownerEmail: "ann@example.org", now: Fixture.enrolled)
            #expect(try await HeartbeatScenarios.refresh(client, homeToken, try HeartbeatScenarios.text(SentinelHealthTests.healthy)).status == .ok)
            let accounts = try await harness.database.withSession { db in
                try await db.raw("SELECT a.email, e.payload FROM events e JOIN accounts a ON a.id = e.account_id WHERE e.kind = 'sentinel' ORDER BY a.email, e.id").all()
                    .map { (try $0.decode(column: "email", as: String.self), try $0.decode(column: "payload", as: String.self)) }
            }
            #expect(accounts.map(\.0) == ["ann@example.org", "olga@example.org", "olga@example.org"])
            #expect(accounts.filter { $0.1.contains(home.id) }.map(\.0) == ["ann@example.org", "olga@example.org"])
        }
    }
}
