import BikebeaconAPI
import Foundation
import HummingbirdTesting
import Testing
@testable import Server

/// Coverage for owners (#34, goal 5): around the place a missing bike was last heard, how many
/// public sentinels listen now, and when each was not listening while the bike was missing;
/// home sentinels never appear, far and retired ones do not count, and those not on the coverage map are only counted.
enum CoverageScenarios {
    static let minute: Int64 = 60_000
    /// Cafe Rosa's place; the others are placed around it.
    static let rosa = (latitude: 52.0907, longitude: 5.1214)

    static func aroundTheLastPlace(_ backend: Backend) async throws {
        let clock = PushScenarios.Clock(start: Fixture.afterSightings)
        let harness = try await Harness.make(backend, options: Harness.testOptions {
            $0.now = clock.read
            $0.sentinelSweepInterval = .seconds(3600)  // the test sweeps itself, at the times it chooses
        })
        let health = SentinelHealthStore(database: harness.database)
        let sentinels = SentinelStore(database: harness.database)
        let (_, cafe) = try await harness.sentinel("Cafe Rosa", latitude: rosa.latitude, longitude: rosa.longitude)
        // 0.0045° north: 500 m.
        let (_, station) = try await harness.sentinel("Station", latitude: rosa.latitude + 0.0045, longitude: rosa.longitude)
        // 5 km north: too far to count.
        let (_, far) = try await harness.sentinel("Far Away Farm", latitude: rosa.latitude + 0.045, longitude: rosa.longitude)
        // 830 m north and 750 m east: inside the database's coarse box, but 1.12 km away.
        let (_, corner) = try await harness.sentinel("Corner Shop", latitude: rosa.latitude + 0.0075, longitude: rosa.longitude + 0.011)
        // 80 m south, but revoked.
        _ = try await harness.sentinel("Old Mill", latitude: rosa.latitude - 0.0007, longitude: rosa.longitude)
        try await sentinels.revoke(name: "Old Mill", now: clock.read())
        // A roaming sentinel has no place of its own.
        _ = try await sentinels.add(name: "Bus line 12", latitude: nil, longitude: nil, now: Fixture.enrolled)
        // Their hosts opted in to the coverage map: named (#43; one that did not is only counted, below).
        for name in ["Cafe Rosa", "Station", "Far Away Farm", "Corner Shop"] { try await sentinels.setCoverageMap(name: name, on: true) }

        try await harness.run { client in
            let ann = try await client.owner("ann@example.org")
            let mallory = try await client.owner("mallory@example.org")
            _ = try await client.owner("bob@example.org")
            // Bob's home, 50 m from the cafe: near, but never listed, by name or place.
            let home = (name: "Bob's garage, 12 Elm St", latitude: 52.09111, longitude: 5.12222)
            let (_, bobsHome) = try await sentinels.add(name: home.name, latitude: home.latitude, longitude: home.longitude,
                                                        ownerEmail: "bob@example.org", now: Fixture.enrolled)
            let bike = try await client.bike(ann)

            func coverage(_ token: String? = ann) async throws -> BikeCoverage {
                let response = try await client.send(.get, "/v1/bikes/\(bike.id)/coverage", token: token)
                #expect(response.status == .ok)
                #expect(!String(buffer: response.body).contains("Bob") && !String(buffer: response.body).contains("52.0911"))
                return try client.decode(BikeCoverage.self, response)
            }
            func beat(_ tokens: [String]) async throws {
                for token in tokens {
                    #expect(try await HeartbeatScenarios.refresh(client, token, try HeartbeatScenarios.text(SentinelHealthTests.healthy)).status == .ok)
                }
            }
            func sighting(by token: String) async throws {
                let time = Timestamp.format(milliseconds: clock.read() - 1000)
                let result = try client.decode(SightingResult.self, try await client.send(
                    .post, "/v1/sightings", token: token, json: Fixture.Batch(sightings: [Fixture.sighting(time: time)])))
                #expect(result.accepted == 1, "\(result)")
            }

            // Only its owner reads it: another owner and an unknown bike get 404, no account 401.
            expectError(try await client.send(.get, "/v1/bikes/\(bike.id)/coverage", token: mallory), .notFound, "not_found")
            expectError(try await client.send(.get, "/v1/bikes/nope/coverage", token: ann), .notFound, "not_found")
            expectError(try await client.send(.get, "/v1/bikes/\(bike.id)/coverage"), .unauthorized)

            // Never heard: no place, so nothing to count around it; not missing, so no gaps.
            #expect(try await coverage() == BikeCoverage(place: nil, radiusMetres: 1000, missingSince: nil, listening: 0, sentinels: []))

            // 00:00: every sentinel listens. 01:00: the bike goes missing, and the cafe hears it at once.
            try await beat([cafe, station, far, corner, bobsHome])
            clock.advance(60 * minute)
            let missingSince = clock.read()
            #expect(try await client.send(.post, "/v1/bikes/\(bike.id)/missing", token: ann).status == .ok)
            try await beat([cafe, station, far, corner, bobsHome])
            clock.advance(minute)
            try await sighting(by: cafe)

            // After 01:00 the cafe's heartbeats stop; the sweep at 01:07 records it silent.
            for _ in 0..<6 {
                clock.advance(minute)
                try await beat([station, far, corner, bobsHome])
            }
            try await health.sweep(now: clock.read())
            let silentAt = clock.read()
            let during = try await coverage()
            #expect(during.listening == 1)
            #expect(during.sentinels.map(\.name) == ["Cafe Rosa", "Station"])
            #expect(during.sentinels[0].state == "silent"
                && during.sentinels[0].notListening == [CoverageGap(from: Timestamp.format(milliseconds: silentAt), until: nil, state: "silent")])

            // 03:40: it is back.
            for _ in 0..<153 {
                clock.advance(minute)
                try await beat([station, far, corner, bobsHome])
            }
            try await beat([cafe])
            let backAt = clock.read()
            clock.advance(30 * minute)
            try await beat([cafe, station, far, corner, bobsHome])

            let found = try await coverage()
            #expect(found.place == CoveragePlace(latitude: rosa.latitude, longitude: rosa.longitude, accuracy: nil,
                                                 time: Timestamp.format(milliseconds: missingSince + minute - 1000), sentinel: "Cafe Rosa"))
            #expect(found.radiusMetres == 1000 && found.missingSince == Timestamp.format(milliseconds: missingSince))
            #expect(found.listening == 2)
            #expect(found.sentinels == [
                CoverageSentinel(name: "Cafe Rosa", distanceMetres: 0, state: "listening", notListening: [
                    CoverageGap(from: Timestamp.format(milliseconds: silentAt), until: Timestamp.format(milliseconds: backAt), state: "silent"),
                ]),
                CoverageSentinel(name: "Station", distanceMetres: 500, state: "listening", notListening: []),
            ])

            // The share page says the same to whoever holds the link.
            let share = try client.decode(Share.self, try await client.send(.post, "/v1/bikes/\(bike.id)/shares", token: ann,
                                                                            json: ShareRequest(expiresIn: 24)))
            let shared = try client.decode(SharedBike.self, try await client.send(.get, "/v1/shared/\(try #require(share.token))"))
            #expect(shared.coverage == found)

            // The theft report says the same in words, its times in UTC as all its times are.
            let report = String(buffer: try await client.send(.get, "/v1/bikes/\(bike.id)/report", token: ann).body)
            #expect(report.contains("<h2>Coverage</h2><p>Within 1 km of the last place: 2 public sentinels, all of them listening now. "
                + "Cafe Rosa: not listening 2026-11-23 01:07–03:40.</p>"), "\(report)")

            // A public sentinel that never sent a heartbeat counts as silent since the bike went missing.
            _ = try await harness.sentinel("Bakery", latitude: rosa.latitude, longitude: rosa.longitude + 0.01)
            try await sentinels.setCoverageMap(name: "Bakery", on: true)
            let withBakery = try await coverage()
            #expect(withBakery.listening == 2)
            #expect(withBakery.sentinels.last == CoverageSentinel(name: "Bakery", distanceMetres: 680, state: "silent", notListening: [
                CoverageGap(from: Timestamp.format(milliseconds: missingSince), until: nil, state: "silent"),
            ]))

            // A public sentinel whose host did not opt in to the coverage map is counted, never named or placed (#43).
            _ = try await harness.sentinel("Hidden Yard", latitude: rosa.latitude - 0.0027, longitude: rosa.longitude)
            let counted = try await client.send(.get, "/v1/bikes/\(bike.id)/coverage", token: ann)
            #expect(!String(buffer: counted.body).contains("Hidden Yard"))
            let withUnnamed = try client.decode(BikeCoverage.self, counted)
            #expect(withUnnamed.sentinels == withBakery.sentinels && withUnnamed.unnamed == 1 && withUnnamed.unnamedListening == 0
                && withUnnamed.listening == withBakery.listening, "\(withUnnamed)")
            let unnamedReport = String(buffer: try await client.send(.get, "/v1/bikes/\(bike.id)/report", token: ann).body)
            #expect(unnamedReport.contains("1 more not on the coverage map (not listening).") && !unnamedReport.contains("Hidden Yard"),
                    "\(unnamedReport)")

            // Last heard by Bob's home sentinel: Ann sees "a private sentinel" on its ~500 m grid, and
            // the sentinels around that point; Bob's is still not among them.
            clock.advance(minute)
            try await sighting(by: bobsHome)
            let snapped = SightingPrivacy.snapped(latitude: home.latitude, longitude: home.longitude)
            let privately = try await coverage()
            #expect(privately.place == CoveragePlace(latitude: snapped.latitude, longitude: snapped.longitude, accuracy: 500,
                                                     time: Timestamp.format(milliseconds: clock.read() - 1000), sentinel: "a private sentinel"))
            #expect(privately.sentinels.allSatisfy { !$0.name.contains("Bob") } && !privately.sentinels.isEmpty)
            let sharedPrivately = try await client.send(.get, "/v1/shared/\(try #require(share.token))")
            #expect(!String(buffer: sharedPrivately.body).contains("Bob") && !String(buffer: sharedPrivately.body).contains("52.0911"))
            #expect(try client.decode(SharedBike.self, sharedPrivately).coverage?.place?.sentinel == "a private sentinel")
            let privateReport = String(buffer: try await client.send(.get, "/v1/bikes/\(bike.id)/report", token: ann).body)
            #expect(privateReport.contains("<h2>Coverage</h2><p>Within 1 km of the last place: ") && privateReport.contains("a private sentinel")
                && !privateReport.contains("Bob") && !privateReport.contains("Elm St"), "\(privateReport)")

            // Recovered: nothing to count gaps against.
            #expect(try await client.send(.post, "/v1/bikes/\(bike.id)/recovered", token: ann).status == .ok)
            let recovered = try await coverage()
            #expect(recovered.missingSince == nil && recovered.sentinels.allSatisfy(\.notListening.isEmpty) && recovered.place != nil)
        }
    }
}
