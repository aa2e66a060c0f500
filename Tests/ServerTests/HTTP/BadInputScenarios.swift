import BikebeaconAPI
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import Server

/// Malformed, oversized and unknown requests: a 4xx `{error, message}`, never a 5xx, never a partial write.
enum BadInputScenarios {
    static func refused(_ backend: Backend) async throws {
        let harness = try await Harness.make(backend)
        let (_, sentinel) = try await harness.sentinel()
        try await harness.run { client in
            let owner = try await client.owner("ann@example.org")
            expectError(try await client.send(.post, "/v1/accounts", raw: "{\"email\": "), .badRequest, "invalid_request")
            expectError(try await client.send(.post, "/v1/accounts", raw: "[1,2,3]"), .badRequest)
            expectError(try await client.send(.post, "/v1/accounts"), .badRequest)
            expectError(try await client.send(.post, "/v1/bikes", token: owner, raw: "\u{FF}\u{FE}garbage"), .badRequest)
            expectError(try await client.send(.post, "/v1/sightings", token: sentinel, raw: #"{"sightings": 5}"#), .badRequest)

            let huge = String(repeating: "x", count: AppContext.bodyLimit + 1)
            expectError(try await client.send(.post, "/v1/bikes", token: owner, json: ["name": huge]), .contentTooLarge, "too_large")
            let tooMany = Fixture.Batch(sightings: (0...SightingBatch<SightingItem>.maxItems).map { _ in Fixture.sighting(distance: nil) })
            expectError(try await client.send(.post, "/v1/sightings", token: sentinel, json: tooMany), .contentTooLarge, "batch_too_large")

            expectError(try await client.send(.get, "/v1/nothing-here"), .notFound, "not_found")
            expectError(try await client.send(.get, "/v1/bikes/\(String(repeating: "9", count: 500))", token: owner), .notFound)
            expectError(try await client.send(.put, "/v1/account/webhook", token: owner, json: ["url": "ftp://example.org/x"]), .badRequest)
            expectError(try await client.send(.put, "/v1/account/webhook", token: owner, json: ["url": "not a url"]), .badRequest)
            // Nothing above left a bike behind.
            let bikes = try client.decode(BikeList.self, try await client.send(.get, "/v1/bikes", token: owner))
            #expect(bikes.bikes.isEmpty)
        }
    }
}
