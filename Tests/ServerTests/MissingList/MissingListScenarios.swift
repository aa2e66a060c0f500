import BikebeaconAPI
import CompressNIO
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

    /// A sentinel that sends `Accept-Encoding: gzip` gets the list and its deltas gzipped, under a tag of
    /// their own and with `Vary`, and the same JSON once unpacked; either tag of the current version
    /// answers 304; a client that does not ask (or refuses gzip) gets plain JSON as before; and a change
    /// reaches the next answer in both encodings (each version's bodies are made once and kept).
    static func gzipAnswers(_ backend: Backend) async throws {
        let harness = try await Harness.make(backend)
        let (_, sentinel) = try await harness.sentinel()
        try await harness.run { client in
            let owner = try await client.owner("ann@example.org")
            for minor in 1...20 {
                let bike = try await client.bike(owner, name: "Bike \(minor)", minor: minor)
                #expect(try await client.send(.post, "/v1/bikes/\(bike.id)/missing", token: owner).status == .ok)
            }
            let gzip: HTTPFields = [.acceptEncoding: "deflate, gzip;q=0.8, br"]
            let plain = try await client.send(.get, "/v1/missing", token: sentinel)
            let packed = try await client.send(.get, "/v1/missing", token: sentinel, headers: gzip)
            let list = try client.decode(MissingList.self, plain)
            #expect(list.beacons.count == 20)
            #expect(plain.headers[.contentEncoding] == nil && plain.headers[.vary] == "Accept-Encoding")
            #expect(plain.headers[.eTag] == "\"v\(list.version)\"")
            #expect(packed.status == .ok && packed.headers[.contentEncoding] == "gzip" && packed.headers[.vary] == "Accept-Encoding")
            #expect(packed.headers[.eTag] == "\"v\(list.version)-gzip\"")
            #expect(packed.headers[.contentType] == "application/json; charset=utf-8")
            #expect(try unpack(packed.body) == Data(plain.body.readableBytesView))
            #expect(packed.body.readableBytes * 3 < plain.body.readableBytes)
            // Refused by weight, or not named: plain.
            for refusal in ["gzip;q=0", "br", "*;q=0", "identity"] {
                let answer = try await client.send(.get, "/v1/missing", token: sentinel, headers: [.acceptEncoding: refusal])
                #expect(answer.headers[.contentEncoding] == nil && answer.body == plain.body, "\(refusal)")
            }
            #expect(try await client.send(.get, "/v1/missing", token: sentinel, headers: [.acceptEncoding: "*"]).headers[.contentEncoding] == "gzip")

            // Either tag is the same list: 304, with the tag of the encoding this request would get.
            for tag in ["\"v\(list.version)-gzip\"", "\"v\(list.version)\""] {
                var headers = gzip
                headers[.ifNoneMatch] = tag
                let current = try await client.send(.get, "/v1/missing?since=\(list.version)", token: sentinel, headers: headers)
                #expect(current.status == .notModified && current.body.readableBytes == 0)
                #expect(current.headers[.eTag] == "\"v\(list.version)-gzip\"" && current.headers[.vary] == "Accept-Encoding")
                let unasked = try await client.send(.get, "/v1/missing", token: sentinel, headers: [.ifNoneMatch: tag])
                #expect(unasked.status == .notModified && unasked.headers[.eTag] == "\"v\(list.version)\"")
            }

            // A change: the delta, gzipped, under the new version's gzip tag; the next full list has it too.
            let extra = try await client.bike(owner, name: "Bike 21", minor: 21)
            #expect(try await client.send(.post, "/v1/bikes/\(extra.id)/missing", token: owner).status == .ok)
            var behind = gzip
            behind[.ifNoneMatch] = "\"v\(list.version)-gzip\""
            let deltaAnswer = try await client.send(.get, "/v1/missing?since=\(list.version)", token: sentinel, headers: behind)
            #expect(deltaAnswer.headers[.contentEncoding] == "gzip")
            let delta = try JSONDecoder().decode(MissingDelta.self, from: try unpack(deltaAnswer.body))
            #expect(delta.since == list.version && delta.version == list.version + 1 && delta.added.map(\.minor) == [21])
            #expect(deltaAnswer.headers[.eTag] == "\"v\(delta.version)-gzip\"")
            let plainDelta = try await client.send(.get, "/v1/missing?since=\(list.version)", token: sentinel)
            #expect(try client.decode(MissingDelta.self, plainDelta) == delta && plainDelta.headers[.eTag] == "\"v\(delta.version)\"")
            let newList = try await client.send(.get, "/v1/missing", token: sentinel, headers: gzip)
            let unpacked = try JSONDecoder().decode(MissingList.self, from: try unpack(newList.body))
            #expect(unpacked.version == delta.version && unpacked.beacons.count == 21)
            #expect(try client.decode(MissingList.self, try await client.send(.get, "/v1/missing", token: sentinel)) == unpacked)
        }
    }

    static func unpack(_ body: ByteBuffer) throws -> Data {
        var body = body
        return Data(try body.decompress(with: .gzip()).readableBytesView)
    }
}
