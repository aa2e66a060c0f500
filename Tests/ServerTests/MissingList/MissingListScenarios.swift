import BikebeaconAPI
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import Server

/// The missing list: versions, strong ETags, 304s and deltas.
enum MissingListScenarios {
    static func etagAndDeltas(_ backend: Backend) async throws {
        let harness = try await Harness.make(backend, options: Harness.testOptions { $0.deltaRetention = 3 })
        let (_, sentinel) = try await harness.sentinel()
        try await harness.run { client in
            let owner = try await client.owner("ann@example.org")
            let bike = try await client.bike(owner)

            let empty = try await client.send(.get, "/v1/missing", token: sentinel)
            #expect(empty.status == .ok)
            let v0 = try client.decode(MissingList.self, empty)
            #expect(v0.beacons.isEmpty)
            let tag0 = try #require(empty.headers[.eTag])
            #expect(tag0 == "\"v\(v0.version)\"" && !tag0.hasPrefix("W/"))
            let unchanged = try await client.send(.get, "/v1/missing", token: sentinel, headers: [.ifNoneMatch: tag0])
            #expect(unchanged.status == .notModified && unchanged.body.readableBytes == 0)

            #expect(try await client.send(.post, "/v1/bikes/\(bike.id)/missing", token: owner).status == .ok)
            // Reporting it twice changes nothing.
            #expect(try await client.send(.post, "/v1/bikes/\(bike.id)/missing", token: owner).status == .ok)
            let full = try await client.send(.get, "/v1/missing", token: sentinel, headers: [.ifNoneMatch: tag0])
            #expect(full.status == .ok)
            let v1 = try client.decode(MissingList.self, full)
            #expect(v1.version == v0.version + 1)
            #expect(v1.beacons.count == 1)
            #expect(v1.beacons.first?.description == .init(make: "Brompton", model: "C Line", colour: "racing green"))
            #expect(v1.beacons.first?.major == 1 && v1.beacons.first?.minor == 25626)

            let added = try client.decode(MissingDelta.self, try await client.send(.get, "/v1/missing?since=\(v0.version)", token: sentinel))
            #expect(added.since == v0.version && added.version == v1.version)
            #expect(added.added.map(\.uuid.uuidString) == [Fixture.beaconA] && added.removed.isEmpty)

            // A description change on a missing bike reaches sentinels as a new version.
            _ = try await client.send(.patch, "/v1/bikes/\(bike.id)", token: owner, json: ["colour": "black"])
            #expect(try await client.send(.post, "/v1/bikes/\(bike.id)/recovered", token: owner).status == .ok)
            let removed = try client.decode(MissingDelta.self, try await client.send(.get, "/v1/missing?since=\(v1.version)", token: sentinel))
            #expect(removed.version == v1.version + 2)
            #expect(removed.added.isEmpty && removed.removed.map(\.description) == ["\(Fixture.beaconA):1:25626"])
            // Missing then recovered since v0: nothing to add, one to remove.
            let net = try client.decode(MissingDelta.self, try await client.send(.get, "/v1/missing?since=\(v0.version)", token: sentinel))
            #expect(net.added.isEmpty && net.removed.count == 1)

            // Older than the kept change log (3 versions): the full list instead.
            for _ in 0..<2 {
                _ = try await client.send(.post, "/v1/bikes/\(bike.id)/missing", token: owner)
                _ = try await client.send(.post, "/v1/bikes/\(bike.id)/recovered", token: owner)
            }
            let tooOld = try await client.send(.get, "/v1/missing?since=\(v0.version)", token: sentinel)
            let fullAgain = try client.decode(MissingList.self, tooOld)
            #expect(fullAgain.version == v1.version + 6 && fullAgain.beacons.isEmpty)
            #expect(tooOld.headers[.eTag] == "\"v\(fullAgain.version)\"")
            // A version from the future (say, after a database restore) also gets the full list.
            let future = try client.decode(MissingList.self, try await client.send(.get, "/v1/missing?since=999999", token: sentinel))
            #expect(future.version == fullAgain.version)
            expectError(try await client.send(.get, "/v1/missing?since=abc", token: sentinel), .badRequest)
        }
    }

    /// A sentinel polls with both `since` and `If-None-Match` (`HTTPMissingListSource`), keeping the tag of the
    /// last answer: holding the current list it gets a 304 and no body, as a plain ETag poll does, not an
    /// empty delta; behind, it gets the delta with its version's tag, and with that tag a 304 again.
    static func sentinelPollWithSinceIsNotModified(_ backend: Backend) async throws {
        let harness = try await Harness.make(backend)
        let (_, sentinel) = try await harness.sentinel()
        try await harness.run { client in
            let owner = try await client.owner("ann@example.org")
            let bike = try await client.bike(owner)
            let first = try await client.send(.get, "/v1/missing", token: sentinel)
            let v0 = try client.decode(MissingList.self, first)
            let tag0 = try #require(first.headers[.eTag])

            let current = try await client.send(.get, "/v1/missing?since=\(v0.version)", token: sentinel, headers: [.ifNoneMatch: tag0])
            #expect(current.status == .notModified && current.body.readableBytes == 0)
            #expect(current.headers[.eTag] == tag0)

            #expect(try await client.send(.post, "/v1/bikes/\(bike.id)/missing", token: owner).status == .ok)
            let behind = try await client.send(.get, "/v1/missing?since=\(v0.version)", token: sentinel, headers: [.ifNoneMatch: tag0])
            let delta = try client.decode(MissingDelta.self, behind)
            #expect(delta.since == v0.version && delta.version == v0.version + 1 && delta.added.count == 1)
            let tag1 = try #require(behind.headers[.eTag])
            #expect(tag1 == "\"v\(delta.version)\"")
            let caughtUp = try await client.send(.get, "/v1/missing?since=\(delta.version)", token: sentinel, headers: [.ifNoneMatch: tag1])
            #expect(caughtUp.status == .notModified && caughtUp.body.readableBytes == 0)
            // A bad `since` is still refused, even with a current tag.
            expectError(try await client.send(.get, "/v1/missing?since=abc", token: sentinel, headers: [.ifNoneMatch: tag1]), .badRequest)
        }
    }
}
