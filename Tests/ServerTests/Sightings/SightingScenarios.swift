import BikebeaconAPI
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import Server

/// Sighting ingest (idempotent, per-item rejection, rate limit) and owners' sighting reads.
enum SightingScenarios {
    static func ingestAndRead(_ backend: Backend) async throws {
        let harness = try await Harness.make(backend)
        let (_, sentinel) = try await harness.sentinel("cafe", latitude: 48.8566, longitude: 2.3522)
        try await harness.run { client in
            let owner = try await client.owner("ann@example.org")
            let bike = try await client.bike(owner)
            _ = try await client.bike(owner, name: "Spare", beacon: Fixture.beaconB, major: 3838, minor: 4949)
            _ = try await client.send(.post, "/v1/bikes/\(bike.id)/missing", token: owner)

            let first = Fixture.sighting(event: "arrived", time: "2026-11-21T10:00:00Z")
            let second = Fixture.sighting(event: "present", time: "2026-11-21T10:00:30.250+01:00", distance: nil, zone: "far")
            let notMissing = Fixture.sighting(uuid: Fixture.beaconB, major: 3838, minor: 4949)
            var broken = Fixture.sighting(event: "lingered")
            broken.rssi = -200
            let batch = Fixture.Batch(sightings: [first, second, notMissing, broken, first])
            let response = try await client.send(.post, "/v1/sightings", token: sentinel, json: batch)
            #expect(response.status == .ok)
            let result = try client.decode(SightingResult.self, response)
            #expect(result.accepted == 2 && result.duplicates == 0)
            // Rejections echo the id exactly as the sentinel sent it.
            #expect(Set(result.rejected.map(\.id)) == Set([notMissing.id, broken.id]))
            #expect(result.rejected.contains { $0.reason.contains("not on the missing list") })

            // The same batch again (a sentinel retrying after a lost response): nothing new is stored.
            let again = try client.decode(SightingResult.self, try await client.send(.post, "/v1/sightings", token: sentinel, json: batch))
            #expect(again.accepted == 0 && again.duplicates == 2)

            let page = try client.decode(SightingPage.self, try await client.send(.get, "/v1/bikes/\(bike.id)/sightings", token: owner))
            #expect(page.sightings.count == 2 && page.nextCursor == nil)
            // Newest first; the place is the sentinel's enrolled position; times come back as RFC 3339 UTC.
            #expect(page.sightings.map(\.time) == ["2026-11-21T10:00:00.000Z", "2026-11-21T09:00:30.250Z"])
            #expect(page.sightings.allSatisfy { $0.latitude == 48.8566 && $0.longitude == 2.3522 && $0.sentinel == "cafe" })
            #expect(page.sightings[1].distance == nil && page.sightings[0].distance == 2.5)

            let firstPage = try await client.send(.get, "/v1/bikes/\(bike.id)/sightings?limit=1", token: owner)
            let one = try client.decode(SightingPage.self, firstPage)
            let cursor = try #require(one.nextCursor)
            #expect(firstPage.headers[HTTPField.Name("Next-Cursor")!] == cursor)
            let rest = try client.decode(SightingPage.self,
                                         try await client.send(.get, "/v1/bikes/\(bike.id)/sightings?limit=1&cursor=\(cursor)", token: owner))
            #expect(rest.sightings.map(\.id) == [page.sightings[1].id] && rest.nextCursor == nil)
            expectError(try await client.send(.get, "/v1/bikes/\(bike.id)/sightings?cursor=nonsense", token: owner), .badRequest)
            expectError(try await client.send(.get, "/v1/bikes/\(bike.id)/sightings?limit=0", token: owner), .badRequest)
            expectError(try await client.send(.get, "/v1/bikes/\(bike.id)/sightings?format=xml", token: owner), .badRequest)

            let csv = try await client.send(.get, "/v1/bikes/\(bike.id)/sightings?format=csv", token: owner)
            #expect(csv.headers[.contentType]?.hasPrefix("text/csv") == true)
            let lines = String(buffer: csv.body).split(separator: "\r\n")
            #expect(lines.count == 3 && lines[0].hasPrefix("id,time,event,zone,rssi"))
            #expect(lines[1].contains(",arrived,near,-67,2.5,48.8566,2.3522,cafe,"))

            let geo = try await client.send(.get, "/v1/bikes/\(bike.id)/sightings?format=geojson", token: owner)
            #expect(geo.headers[.contentType] == "application/geo+json")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(geo.body.readableBytesView)) as? [String: Any])
            let features = try #require(object["features"] as? [[String: Any]])
            // The two sightings, then the bike's position estimate (`EstimateScenarios`).
            #expect(object["type"] as? String == "FeatureCollection" && features.count == 3)
            #expect((features.last?["properties"] as? [String: Any])?["kind"] as? String == "estimate")
            let geometry = try #require(features.first?["geometry"] as? [String: Any])
            #expect(geometry["coordinates"] as? [Double] == [2.3522, 48.8566])

            // The bike found, and the sentinel retrying the batch once more (its answer was lost): what it sent
            // before is a duplicate, not refused for a bike no longer missing; a new sighting of it is refused.
            #expect(try await client.send(.post, "/v1/bikes/\(bike.id)/recovered", token: owner).status == .ok)
            let late = Fixture.sighting(event: "present", time: "2026-11-21T10:01:00Z")
            let retry = try client.decode(SightingResult.self, try await client.send(
                .post, "/v1/sightings", token: sentinel, json: Fixture.Batch(sightings: batch.sightings + [late])))
            #expect(retry.accepted == 0 && retry.duplicates == 2)
            #expect(Set(retry.rejected.map(\.id)) == Set([notMissing.id, broken.id, late.id]))
        }
    }

    /// The ingest's copy of the missing bikes (`MissingBikeIndex`) is only a yes: a bike marked missing where this
    /// server cannot hear of it (another process on the SQLite file, with this server trusting its copy for an
    /// hour) is found in the database, not refused from the copy.
    static func newlyMissingElsewhereIsTaken() async throws {
        let harness = try await Harness.make(.sqlite, options: Harness.testOptions { $0.sentinelPollMaxAge = .seconds(3600) })
        let (_, sentinel) = try await harness.sentinel("cafe")
        try await harness.withOtherPools { pools in
            let other = pools[0]
            let elsewhere = try await BikebeaconServer.makeApplication(database: other, options: harness.options, logger: Harness.logger)
            try await harness.run(keepDatabase: true) { client in
                let owner = try await client.owner("ann@example.org")
                let first = try await client.bike(owner)
                let second = try await client.bike(owner, name: "Spare", beacon: Fixture.beaconB, major: 3838, minor: 4949)
                _ = try await client.send(.post, "/v1/bikes/\(first.id)/missing", token: owner)
                let heard = try client.decode(SightingResult.self, try await client.send(.post, "/v1/sightings", token: sentinel,
                                                                                         json: Fixture.Batch(sightings: [Fixture.sighting(event: "present")])))
                // (Not a notifying event: its transaction would count as this server's commit and have it read the list again.)
                #expect(heard.accepted == 1)
                let marked = try await elsewhere.test(.router) { inner in
                    try await Client(inner: inner).send(.post, "/v1/bikes/\(second.id)/missing", token: owner).status
                }
                #expect(marked == .ok)
                let spare = Fixture.sighting(uuid: Fixture.beaconB, major: 3838, minor: 4949)
                let result = try client.decode(SightingResult.self, try await client.send(.post, "/v1/sightings", token: sentinel,
                                                                                          json: Fixture.Batch(sightings: [spare])))
                #expect(result.accepted == 1 && result.rejected.isEmpty, "\(result)")
            }
        }
    }

    static func sentinelRateLimit(_ backend: Backend) async throws {
        let harness = try await Harness.make(backend, options: Harness.testOptions {
            $0.sentinelRateLimit = RateLimit(perSecond: 0.01, burst: 2)
            // A still clock: on a loaded machine seconds pass between requests and would refill the bucket.
            let start = ServerOptions.wallClock()
            $0.now = { start }
        })
        let (_, garage) = try await harness.sentinel("garage")
        let (_, cafe) = try await harness.sentinel("cafe")
        try await harness.run { client in
            let empty = Fixture.Batch(sightings: [])
            #expect(try await client.send(.post, "/v1/sightings", token: garage, json: empty).status == .ok)
            #expect(try await client.send(.post, "/v1/sightings", token: garage, json: empty).status == .ok)
            let limited = try await client.send(.post, "/v1/sightings", token: garage, json: empty)
            expectError(limited, .tooManyRequests, "rate_limited")
            // One token per 100 s: the sentinel is told to come back when the next one is there.
            #expect(limited.headers[.retryAfter] == "100")
            // The limit is per sentinel.
            #expect(try await client.send(.post, "/v1/sightings", token: cafe, json: empty).status == .ok)
            // …and shared by every replica on the database: a second server does not refill the bucket.
            let replica = try await BikebeaconServer.makeApplication(database: harness.database, options: harness.options, logger: Harness.logger)
            try await replica.test(.router) { inner in
                let other = Client(inner: inner)
                expectError(try await other.send(.post, "/v1/sightings", token: garage, json: empty), .tooManyRequests, "rate_limited")
                #expect(try await other.send(.post, "/v1/sightings", token: cafe, json: empty).status == .ok)
                expectError(try await client.send(.post, "/v1/sightings", token: cafe, json: empty), .tooManyRequests, "rate_limited")
            }
        }
    }
}
