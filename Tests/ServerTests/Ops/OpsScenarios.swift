import BikebeaconAPI
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import Server

/// Health, Prometheus metrics and the OpenAPI document.
enum OpsScenarios {
    static func health(_ backend: Backend) async throws {
        try await Harness.make(backend).run { client in
            let health = try await client.send(.get, "/healthz")
            #expect(health.status == .ok)
            #expect(try client.decode(Health.self, health).database == backend.rawValue)
        }
    }

    static func metricsAndOpenAPI(_ backend: Backend) async throws {
        let harness = try await Harness.make(backend)
        let (_, sentinel) = try await harness.sentinel()
        let serverMetrics = ServerMetrics()
        try await harness.run(metrics: serverMetrics) { client in
            let owner = try await client.owner("ann@example.org")
            let bike = try await client.bike(owner)
            _ = try await client.send(.post, "/v1/bikes/\(bike.id)/missing", token: owner)
            _ = try await client.send(.post, "/v1/sightings", token: sentinel,
                                      json: Fixture.Batch(sightings: [Fixture.sighting(), Fixture.sighting(uuid: Fixture.beaconC)]))
            _ = try await client.send(.get, "/v1/bikes/\(bike.id)", token: owner)
            for method in ["BREW", "M1X", "PROPFIND"] {
                _ = try await client.send(try #require(HTTPRequest.Method(method)), "/v1/missing")
            }
            // Not on the API's port: on the metrics listener (`ListenerScenarios`), whose router this is.
            expectError(try await client.send(.get, "/metrics"), .notFound)
            let text = try await harness.scrape(serverMetrics)
            #expect(text.contains(#"bikebeacon_sightings_total{outcome="accepted"} 1"#))
            #expect(text.contains(#"bikebeacon_sightings_total{outcome="rejected"} 1"#))
            // Requests are labelled by route template, never by the raw path.
            #expect(text.contains(#"route="/v1/bikes/{id}""#))
            #expect(!text.contains(bike.id))
            // …and by method only for the methods the API answers: a client's made-up methods add no series.
            #expect(text.contains(#"method="other""#))
            #expect(!text.contains("BREW") && !text.contains("M1X") && !text.contains("PROPFIND"))

            let spec = try await client.send(.get, "/openapi.yaml")
            #expect(spec.status == .ok)
            let yaml = String(buffer: spec.body)
            #expect(yaml.hasPrefix("openapi: 3.1.0"))
            for path in ["/v1/accounts:", "/v1/sessions:", "/v1/account/sessions:", "/v1/account/sessions/{id}:", "/v1/bikes/{id}/sightings:", "/v1/missing:", "/v1/sightings:", "/v1/events:"] {
                #expect(yaml.contains(path), "openapi.yaml lacks \(path)")
            }
        }
    }
}
