import Beacon
import BikebeaconAPI
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import Server

/// `POST /v1/beacons/parse`: adding a tag without typing its 36-character UUID.
enum BeaconPasteScenarios {
    /// The dashboard's paste box: the server's one parser, with the error it gives.
    static func parse(_ backend: Backend) async throws {
        try await Harness.make(backend).run { client in
            let ann = try await client.owner("ann@example.org")
            let pastes = [
                "b5b182c7eab14988aa99b5c1517008d9 / 1 / 25626",
                "4c000215b5b182c7eab14988aa99b5c1517008d90001641ac5",
                "https://tags.example.com/add?uuid=B5B182C7-EAB1-4988-AA99-B5C1517008D9&major=1&minor=25626",
            ]
            for paste in pastes {
                let response = try await client.send(.post, "/v1/beacons/parse", token: ann, json: ["text": paste])
                #expect(response.status == .ok, "\(paste): \(String(buffer: response.body))")
                #expect(try client.decode(BeaconID.self, response).description == "\(Fixture.beaconA):1:25626", "\(paste)")
            }
            let refused = try await client.send(.post, "/v1/beacons/parse", token: ann, json: ["text": "B5B182C7-EAB1-4988-AA99-B5C1517008D9"])
            expectError(refused, .badRequest, "invalid_beacon")
            #expect(String(buffer: refused.body).contains("not its major and minor"))
            expectError(try await client.send(.post, "/v1/beacons/parse", json: ["text": pastes[0]]), .unauthorized)
            expectError(try await client.send(.post, "/v1/beacons/parse", token: ann, json: ["text": String(repeating: "a", count: 2001)]), .badRequest)
        }
    }
}
