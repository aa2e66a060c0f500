import BikebeaconAPI
import Foundation
import HummingbirdTesting
import Testing
@testable import Server

/// Sightings that hold as evidence (#35, finding 4): a sentinel's token cannot date a sighting in the
/// future or before the sentinel existed, put its readings out of order, or give a fixed sentinel a
/// GPS position; each refusal names its field, and the refusals are counted per sentinel in /metrics.
enum EvidenceScenarios {
    /// 2026-11-22T12:00:00Z: the server's clock in this scenario.
    static let now: Int64 = 1_795_348_800_000

    static func timesAndPlaces(_ backend: Backend) async throws {
        let harness = try await Harness.make(backend, options: Harness.testOptions { $0.now = { now } })
        // Enrolled an hour before the server's clock.
        let (_, garage) = try await SentinelStore(database: harness.database).add(name: "garage", latitude: 52.09, longitude: 5.12, now: now - 3_600_000)
        let (_, bus) = try await SentinelStore(database: harness.database).add(name: "bus", latitude: nil, longitude: nil, now: now - 3_600_000)
        let metrics = ServerMetrics()
        try await harness.run(metrics: metrics) { client in
            let owner = try await client.owner("ann@example.org")
            let bike = try await client.bike(owner)
            _ = try await client.send(.post, "/v1/bikes/\(bike.id)/missing", token: owner)

            func at(_ offset: Int64) -> String { Timestamp.format(milliseconds: now + offset) }
            func item(_ change: (inout SightingItem) -> Void) -> SightingItem {
                var item = Fixture.sighting(time: at(-60_000))
                change(&item)
                return item
            }
            let good = item { _ in }
            let twoMinutesAhead = item { $0.time = at(119_000); $0.lastSeen = at(119_000) }
            let refused: [(SightingItem, field: String, reason: String)] = [
                (item { $0.time = "9999-12-31T23:59:59Z" }, "time", "ahead of the server's clock"),
                (item { $0.time = at(121_000) }, "time", "ahead of the server's clock"),
                (item { $0.time = "0000-01-01T00:00:00Z"; $0.firstSeen = $0.time; $0.lastSeen = $0.time }, "time", "'time'"),
                (item { $0.firstSeen = at(-3_600_000 - 121_000) }, "firstSeen", "before this sentinel was enrolled"),
                (item { $0.lastSeen = at(-30_000) }, "lastSeen", "'lastSeen' is after 'time'"),
                (item { $0.firstSeen = at(-30_000); $0.lastSeen = at(-40_000); $0.time = at(-30_000) }, "firstSeen", "'firstSeen' is after 'lastSeen'"),
                // The Eiffel Tower, from a sentinel enrolled in a garage in Utrecht.
                (item { $0.fix = "gps"; $0.latitude = 48.8584; $0.longitude = 2.2945; $0.fixTime = at(-60_000) }, "fix", "enrolled at a fixed place"),
                (item { $0.fix = "none" }, "fix", "enrolled at a fixed place"),
                (item { $0.latitude = 48.8584 }, "latitude", "enrolled at a fixed place"),
            ]
            let batch = Fixture.Batch(sightings: [good, twoMinutesAhead] + refused.map(\.0))
            let result = try client.decode(SightingResult.self, try await client.send(.post, "/v1/sightings", token: garage, json: batch))
            #expect(result.accepted == 2, "\(result)")
            #expect(result.rejected.count == refused.count)
            for (sent, field, reason) in refused {
                let rejection = result.rejected.first { $0.id == sent.id }
                #expect(rejection?.field == field && rejection?.reason.contains(reason) == true, "\(sent.time): \(String(describing: rejection))")
            }

            // A roaming sentinel's fix: its time is held to the same bounds (a GPS week rollover dates it 2034).
            var passing = Fixture.sighting(event: "passing", time: at(-10_000))
            passing.fix = "gps"; passing.latitude = 52.0912; passing.longitude = 5.1231; passing.fixTime = at(-11_000)
            var rolledOver = passing
            rolledOver.id = UUID().uuidString; rolledOver.fixTime = "2034-04-03T09:53:05.802Z"
            var ancient = passing
            ancient.id = UUID().uuidString; ancient.fixTime = "2014-11-21T12:00:00Z"
            let roaming = try client.decode(SightingResult.self, try await client.send(
                .post, "/v1/sightings", token: bus, json: Fixture.Batch(sightings: [passing, rolledOver, ancient])))
            #expect(roaming.accepted == 1)
            #expect(roaming.rejected.map(\.field) == ["fixTime", "fixTime"] && roaming.rejected.allSatisfy(\.isAboutPosition), "\(roaming)")

            // Nothing refused was stored: the 9999 sighting cannot be "last seen" anywhere.
            let page = try client.decode(SightingPage.self, try await client.send(.get, "/v1/bikes/\(bike.id)/sightings", token: owner))
            #expect(Set(page.sightings.map(\.time)) == Set([at(-10_000), at(119_000), at(-60_000)]))
            #expect(page.sightings.first?.time == at(119_000))

            // The refusals per sentinel and field, for the operator.
            let text = String(decoding: metrics.render(), as: UTF8.self)
            func count(_ sentinel: String, _ field: String) -> Int? {
                text.split(separator: "\n").first { $0.hasPrefix("bikebeacon_sightings_rejected_total{") && $0.contains("sentinel=\"\(sentinel)\"")
                    && $0.contains("field=\"\(field)\"") }
                    .flatMap { $0.split(separator: " ").last.flatMap { Int($0) } }
            }
            #expect(count("garage", "time") == 3 && count("garage", "fix") == 2 && count("garage", "latitude") == 1, "\(text)")
            #expect(count("garage", "firstSeen") == 2 && count("garage", "lastSeen") == 1)
            #expect(count("bus", "fixTime") == 2)
        }
    }
}
