import Beacon
import BikebeaconAPI
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import Server

/// Bikes: create, read, change, delete; one bike per beacon.
enum BikeScenarios {
    static func crud(_ backend: Backend) async throws {
        try await Harness.make(backend).run { client in
            let token = try await client.owner("ann@example.org")
            let bike = try await client.bike(token)
            #expect(bike.name == "Commuter" && bike.make == "Brompton" && !bike.missing)
            #expect(bike.beacon.description == "\(Fixture.beaconA):1:25626")
            #expect(Timestamp.parse(bike.createdAt) != nil)

            let list = try client.decode(BikeList.self, try await client.send(.get, "/v1/bikes", token: token))
            #expect(list.bikes.map(\.id) == [bike.id])
            #expect(try client.decode(Bike.self, try await client.send(.get, "/v1/bikes/\(bike.id)", token: token)) == bike)

            let patched = try await client.send(.patch, "/v1/bikes/\(bike.id)", token: token, json: ["colour": "black", "notes": "new saddle"])
            #expect(patched.status == .ok)
            let changed = try client.decode(Bike.self, patched)
            #expect(changed.colour == "black" && changed.notes == "new saddle" && changed.make == "Brompton")

            // A beacon belongs to at most one bike, whoever owns the other one.
            let other = try await client.owner("bob@example.org")
            expectError(try await client.send(.post, "/v1/bikes", token: other, json: BikeFields(
                name: "Thief", beacon: bike.beacon)), .conflict, "beacon_taken")
            let second = try await client.bike(token, name: "Tourer", beacon: Fixture.beaconB, major: 3838, minor: 4949)
            expectError(try await client.send(.patch, "/v1/bikes/\(second.id)", token: token, json: BikeFields(beacon: bike.beacon)),
                        .conflict, "beacon_taken")

            expectError(try await client.send(.post, "/v1/bikes", token: token, json: ["name": "No beacon"]), .badRequest)
            expectError(try await client.send(.post, "/v1/bikes", token: token,
                                              raw: #"{"name":"x","beacon":{"uuid":"B5B182C7-EAB1-4988-AA99-B5C1517008D9","major":70000,"minor":1}}"#),
                        .badRequest)
            expectError(try await client.send(.patch, "/v1/bikes/\(bike.id)", token: token, json: ["name": "  "]), .badRequest)

            #expect(try await client.send(.delete, "/v1/bikes/\(bike.id)", token: token).status == .noContent)
            expectError(try await client.send(.get, "/v1/bikes/\(bike.id)", token: token), .notFound, "not_found")
            expectError(try await client.send(.delete, "/v1/bikes/\(bike.id)", token: token), .notFound)
        }
    }

    /// One account cannot grow the missing list every sentinel holds without bound.
    static func bikesPerAccount(_ backend: Backend) async throws {
        try await Harness.make(backend, options: Harness.testOptions { $0.bikesPerAccount = 3 }).run { client in
            let token = try await client.owner("ann@example.org")
            var bikes: [Bike] = []
            for minor in 1...3 { bikes.append(try await client.bike(token, minor: minor)) }
            let refused = try await client.send(.post, "/v1/bikes", token: token, json: BikeFields(
                name: "Fourth", beacon: BeaconID(uuid: try #require(UUID(uuidString: Fixture.beaconA)), major: 1, minor: 4)))
            expectError(refused, .conflict, "too_many_bikes")
            #expect(String(buffer: refused.body).contains("at most 3 bikes"))
            #expect(try client.decode(BikeList.self, try await client.send(.get, "/v1/bikes", token: token)).bikes.count == 3)

            // The limit is per owner, and a deleted bike frees its place.
            let other = try await client.owner("bob@example.org")
            _ = try await client.bike(other, minor: 5)
            #expect(try await client.send(.delete, "/v1/bikes/\(bikes[0].id)", token: token).status == .noContent)
            _ = try await client.bike(token, minor: 4)
        }
    }

    /// `409 beacon_taken` is no oracle for whoever can sign up: an account is told a few times, then every bike
    /// with a beacon waits, whether its tag is taken or not; other accounts are not held, and an hour brings one more.
    static func beaconTakenIsNoOracle(_ backend: Backend) async throws {
        let clock = PushScenarios.Clock()
        try await Harness.make(backend, options: Harness.testOptions { $0.now = clock.read }).run { client in
            let ann = try await client.owner("ann@example.org")
            let annsBike = try await client.bike(ann)
            let eve = try await client.owner("eve@example.org")
            func register(_ beacon: BeaconID) async throws -> TestResponse {
                try await client.send(.post, "/v1/bikes", token: eve, json: BikeFields(name: "Probe", beacon: beacon))
            }
            for _ in 0..<5 { expectError(try await register(annsBike.beacon), .conflict, "beacon_taken") }
            let free = BeaconID(uuid: try #require(UUID(uuidString: Fixture.beaconB)), major: 7, minor: 8)
            let taken = try await register(annsBike.beacon)
            let untaken = try await register(free)
            expectError(taken, .tooManyRequests, "rate_limited")
            expectError(untaken, .tooManyRequests, "rate_limited")
            #expect(taken.headers[.retryAfter] != nil && taken.headers[.retryAfter] == untaken.headers[.retryAfter])
            #expect(try client.decode(ErrorBody.self, taken) == client.decode(ErrorBody.self, untaken))
            // Another account is not held.
            _ = try await client.bike(try await client.owner("bob@example.org"), beacon: Fixture.beaconC)
            clock.advance(3_600_000)
            #expect(try await register(free).status == .created)
        }
    }
}
