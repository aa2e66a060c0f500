import BikebeaconAPI
import Foundation
import HummingbirdTesting
import Testing
@testable import Server

/// A roaming sentinel (#27): enrolled without a place, its sightings carry their own position,
/// which is checked, stored, read back and exported; a bad position is refused with a reason.
enum RoamingSightingScenarios {
    static func positionsRoundTrip(_ backend: Backend) async throws {
        let harness = try await Harness.make(backend)
        let (bus, token) = try await SentinelStore(database: harness.database).add(name: "Bus line 12", latitude: nil, longitude: nil,
                                                                                  now: Fixture.enrolled)
        #expect(bus.latitude == nil && bus.longitude == nil)
        #expect(try await SentinelStore(database: harness.database).list().first { $0.name == "Bus line 12" }?.latitude == nil)
        try await harness.run { client in
            let owner = try await client.owner("ann@example.org")
            let bike = try await client.bike(owner)
            _ = try await client.send(.post, "/v1/bikes/\(bike.id)/missing", token: owner)

            var onTheRoute = Fixture.sighting(event: "passing", time: "2026-11-21T10:00:00Z")
            onTheRoute.fix = "gps"
            onTheRoute.latitude = 52.0912
            onTheRoute.longitude = 5.1231
            onTheRoute.accuracy = 8
            onTheRoute.fixTime = "2026-11-21T09:59:59.500Z"
            var noFix = Fixture.sighting(event: "passing", time: "2026-11-21T10:05:00Z")
            noFix.fix = "none"
            // A roaming sentinel that sends no position fields at all has no place to fall back on.
            let unplaced = Fixture.sighting(event: "passing", time: "2026-11-21T10:10:00Z")

            func bad(_ change: (inout SightingItem) -> Void) -> SightingItem {
                var item = onTheRoute
                item.id = UUID().uuidString
                change(&item)
                return item
            }
            let refused: [(SightingItem, String)] = [
                (bad { $0.latitude = 91 }, "'latitude' must be -90…90"),
                (bad { $0.longitude = -180.5 }, "'longitude' must be -180…180"),
                (bad { $0.accuracy = -1 }, "'accuracy' must be a non-negative"),
                (bad { $0.fixTime = "2030-01-01T00:00:00Z" }, "ahead of the server's clock"),
                (bad { $0.fixTime = nil }, "'fixTime' must be an RFC 3339 timestamp"),
                (bad { $0.fix = nil }, "a position needs 'fix': 'gps'"),
                (bad { $0.fix = "none" }, "'fix': 'none' carries no position"),
                (bad { $0.fix = "glonass" }, "'fix' must be gps or none"),
            ]
            let batch = Fixture.Batch(sightings: [onTheRoute, noFix, unplaced] + refused.map(\.0))
            let result = try client.decode(SightingResult.self, try await client.send(.post, "/v1/sightings", token: token, json: batch))
            #expect(result.accepted == 3)
            #expect(result.rejected.count == refused.count)
            for (item, reason) in refused {
                let rejection = result.rejected.first { $0.id == item.id }
                #expect(rejection?.reason.contains(reason) == true, "\(item.id): \(rejection?.reason ?? "accepted")")
            }

            let page = try client.decode(SightingPage.self, try await client.send(.get, "/v1/bikes/\(bike.id)/sightings", token: owner))
            #expect(page.sightings.map(\.time) == ["2026-11-21T10:10:00.000Z", "2026-11-21T10:05:00.000Z", "2026-11-21T10:00:00.000Z"])
            try #require(page.sightings.count == 3)
            let heard = page.sightings[2]
            #expect(heard.event == "passing" && heard.fix == "gps" && heard.sentinel == "Bus line 12")
            #expect(heard.latitude == 52.0912 && heard.longitude == 5.1231 && heard.accuracy == 8)
            #expect(heard.fixTime == "2026-11-21T09:59:59.500Z")
            #expect(heard.place == "near 52.0912, 5.1231 (±8 m) by Bus line 12")
            for record in page.sightings[0...1] {
                #expect(record.fix == "none" && record.latitude == nil && record.longitude == nil && record.accuracy == nil)
                #expect(record.place == "by Bus line 12 (no position)")
            }

            let csv = String(buffer: try await client.send(.get, "/v1/bikes/\(bike.id)/sightings?format=csv", token: owner).body)
            let lines = csv.split(separator: "\r\n")
            #expect(lines[0].hasSuffix(",receivedAt,accuracy,fixTime,fix,heldForReview"))
            #expect(lines[3].contains(",passing,near,-67,2.5,52.0912,5.1231,Bus line 12,") && lines[3].hasSuffix(",8.0,2026-11-21T09:59:59.500Z,gps,"))
            #expect(lines[1].contains(",passing,near,-67,2.5,,,Bus line 12,") && lines[1].hasSuffix(",,,none,"))

            let geo = try await client.send(.get, "/v1/bikes/\(bike.id)/sightings?format=geojson", token: owner)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(geo.body.readableBytesView)) as? [String: Any])
            let features = try #require(object["features"] as? [[String: Any]])
            #expect(features.count == 3)
            // GeoJSON's unlocated feature: geometry null, not a made-up point.
            #expect(features[0]["geometry"] is NSNull)
            let geometry = try #require(features[2]["geometry"] as? [String: Any])
            #expect(geometry["coordinates"] as? [Double] == [5.1231, 52.0912])
        }
    }
}
