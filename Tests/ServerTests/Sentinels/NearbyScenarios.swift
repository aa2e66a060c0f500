import Beacon
import BikebeaconAPI
import Foundation
import HummingbirdTesting
import SQLKit
import Testing
@testable import Server

/// "Find my tag": a home sentinel tells its owner, and only its owner, the tags it hears, and only
/// for the two minutes after they asked; its held `listen` request returns as soon as they ask.
enum NearbyScenarios {
    static func findMyTag(_ backend: Backend) async throws {
        let clock = PushScenarios.Clock()
        let harness = try await Harness.make(backend, options: Harness.testOptions { $0.now = clock.read })
        let (_, cafe) = try await harness.sentinel("Cafe Rosa")
        try await harness.run { client in
            let ann = try await client.owner("ann@example.org")
            let bike = try await client.bike(ann)
            let bob = try await client.owner("bob@example.org")
            let (home, garage) = try await SentinelStore(database: harness.database).add(
                name: "Ann's garage", latitude: 52.09, longitude: 5.12, ownerEmail: " Ann@Example.org", now: clock.read())
            await #expect(throws: SentinelError.self) {
                _ = try await SentinelStore(database: harness.database).add(name: "Nobody's", latitude: 1, longitude: 1,
                                                                            ownerEmail: "nobody@example.org", now: clock.read())
            }

            let mine = try client.decode(HomeSentinelList.self, try await client.send(.get, "/v1/account/sentinels", token: ann))
            #expect(mine.sentinels == [HomeSentinel(id: home.id, name: "Ann's garage", listeningUntil: nil)])
            #expect(try client.decode(HomeSentinelList.self, try await client.send(.get, "/v1/account/sentinels", token: bob)).sentinels.isEmpty)

            // Not asked: a held request comes back empty, and a report is refused.
            #expect(try await client.send(.get, "/v1/sentinel/listen?wait=0", token: garage).status == .noContent)
            let heard = NearbyReport(beacons: [
                .init(beacon: BeaconID(uuid: try #require(UUID(uuidString: Fixture.beaconB)), major: 7, minor: 8), rssi: -80, count: 3),
                .init(beacon: bike.beacon, rssi: -52, count: 9),
            ])
            expectError(try await client.send(.post, "/v1/sentinel/nearby", token: garage, json: heard), .conflict, "not_listening")

            // The sentinel holds its request open; the owner's ask answers it at once.
            let started = ContinuousClock.now
            let held = Task { try await client.send(.get, "/v1/sentinel/listen?wait=20", token: garage) }
            try await Task.sleep(for: .milliseconds(300))
            let asked = try await client.send(.post, "/v1/sentinels/\(home.id)/listen", token: ann)
            let askedAt = ContinuousClock.now
            #expect(asked.status == .accepted)
            let answer = try await held.value
            // Woken by the ask, not by its 20 s hold ending (on a loaded machine the ask itself can take a second or two).
            let waited = ContinuousClock.now - askedAt
            #expect(answer.status == .ok && waited < .seconds(5), "the held request returned \(answer.status) \(waited) after the ask, \(ContinuousClock.now - started) after it was made")
            let request = try client.decode(ListenRequest.self, answer)
            #expect(Timestamp.parse(request.listeningUntil) == clock.read() + 120_000)

            // The report: loudest first, the tag on Ann's bike named; nobody else sees it.
            #expect(try await client.send(.post, "/v1/sentinel/nearby", token: garage, json: heard).status == .noContent)
            let nearby = try client.decode(NearbyBeacons.self, try await client.send(.get, "/v1/sentinels/\(home.id)/nearby", token: ann))
            #expect(nearby.beacons.map(\.rssi) == [-52, -80] && nearby.beacons.map(\.bike) == ["Commuter", nil])
            #expect(nearby.beacons.first?.beacon == bike.beacon && nearby.beacons.first?.count == 9 && nearby.listeningUntil == request.listeningUntil)
            expectError(try await client.send(.get, "/v1/sentinels/\(home.id)/nearby", token: bob), .notFound)
            expectError(try await client.send(.post, "/v1/sentinels/\(home.id)/listen", token: bob), .notFound)
            expectError(try await client.send(.get, "/v1/sentinels/\(home.id)/nearby", token: garage), .forbidden)
            expectError(try await client.send(.get, "/v1/sentinel/listen", token: ann), .forbidden)
            // A sentinel nobody owns is never asked, and told so at once (it stops asking).
            expectError(try await client.send(.get, "/v1/sentinel/listen?wait=20", token: cafe), .notFound, "not_home_sentinel")
            expectError(try await client.send(.post, "/v1/sentinel/nearby", token: cafe, json: heard), .conflict, "not_listening")

            // Found it: stopped at once, what was heard forgotten, the sentinel's next report refused.
            #expect(try await client.send(.delete, "/v1/sentinels/\(home.id)/listen", token: ann).status == .noContent)
            let stopped = try client.decode(NearbyBeacons.self, try await client.send(.get, "/v1/sentinels/\(home.id)/nearby", token: ann))
            #expect(stopped.beacons.isEmpty && stopped.listeningUntil == nil)
            expectError(try await client.send(.post, "/v1/sentinel/nearby", token: garage, json: heard), .conflict, "not_listening")
            expectError(try await client.send(.delete, "/v1/sentinels/\(home.id)/listen", token: bob), .notFound)
            _ = try await client.send(.post, "/v1/sentinels/\(home.id)/listen", token: ann)

            // What is wrong is said.
            expectError(try await client.send(.get, "/v1/sentinel/listen?wait=31", token: garage), .badRequest)
            expectError(try await client.send(.post, "/v1/sentinel/nearby", token: garage, json: NearbyReport(beacons: [
                .init(beacon: bike.beacon, rssi: 40, count: 1)])), .badRequest)
            expectError(try await client.send(.post, "/v1/sentinel/nearby", token: garage, json: NearbyReport(beacons: (0..<101).map {
                .init(beacon: BeaconID(uuid: bike.beacon.uuid, major: UInt16($0), minor: 1), rssi: -70, count: 1) })), .contentTooLarge)

            #expect(try await client.send(.post, "/v1/sentinel/nearby", token: garage, json: heard).status == .noContent)
            #expect(try client.decode(NearbyBeacons.self, try await client.send(.get, "/v1/sentinels/\(home.id)/nearby", token: ann)).beacons.count == 2)

            // Two minutes on: over. Reports are refused, what was heard is no longer shown, and a new ask starts with nothing heard.
            clock.advance(120_000)
            expectError(try await client.send(.post, "/v1/sentinel/nearby", token: garage, json: heard), .conflict, "not_listening")
            #expect(try await client.send(.get, "/v1/sentinel/listen?wait=0", token: garage).status == .noContent)
            let over = try client.decode(NearbyBeacons.self, try await client.send(.get, "/v1/sentinels/\(home.id)/nearby", token: ann))
            #expect(over.listeningUntil == nil)
            #expect(over.beacons.isEmpty, "what the sentinel heard stayed readable after the window: \(over.beacons)")
            _ = try await client.send(.post, "/v1/sentinels/\(home.id)/listen", token: ann)
            #expect(try client.decode(NearbyBeacons.self, try await client.send(.get, "/v1/sentinels/\(home.id)/nearby", token: ann)).beacons.isEmpty)
        }
    }
}
