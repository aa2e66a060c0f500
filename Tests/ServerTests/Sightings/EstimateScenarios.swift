import BikebeaconAPI
import Foundation
import HummingbirdTesting
import SQLKit
import Testing
@testable import Server

/// One position estimate from the owner-visible sightings of a missing bike (#44 goal 2): two sentinels
/// heard in the same minute give one point between them from 2 sources; one sentinel gives its place with a
/// radius, never a point; a sealed sighting (#43) does not move it; another owner's home sentinel makes it
/// no finer than that sentinel's ~500 m grid. The GeoJSON export carries it as a feature with radius50_m/radius90_m; a
/// share link's page and the theft report carry it as a stranger may see it; each sighting's live event carries it.
@Suite("Position estimates")
struct EstimateTests {
    @Test func inWords() {
        #expect(PositionEstimate.words(radius: 34.2, place: "Cafe Rosa", sources: 3)
            == "within 35 m of Cafe Rosa, 9 times in 10, from 3 sentinels")
        #expect(PositionEstimate.words(radius: 0.2, place: "52.0907, 5.1215", sources: 1)
            == "within 1 m of 52.0907, 5.1215, 9 times in 10, from 1 sentinel")
        #expect(PositionEstimate.words(radius: 80, place: "Cafe Rosa", sources: 1, speed: 5)
            == "within 80 m of Cafe Rosa, 9 times in 10, from 1 sentinel, on the move at about 18 km/h")
    }

    @Test func sqlite() async throws { try await EstimateScenarios.fusedSealedAndPrivate(.sqlite) }

    @Test(.enabled(if: Backend.postgresURL != nil, Backend.postgresSkipReason))
    func postgres() async throws { try await EstimateScenarios.fusedSealedAndPrivate(.postgres) }

    @Test func onTheMoveSQLite() async throws { try await EstimateScenarios.onTheMove(.sqlite) }

    @Test(.enabled(if: Backend.postgresURL != nil, Backend.postgresSkipReason))
    func onTheMovePostgres() async throws { try await EstimateScenarios.onTheMove(.postgres) }

    @Test func clockOffsetsSQLite() async throws { try await EstimateScenarios.clockOffsets(.sqlite) }

    @Test(.enabled(if: Backend.postgresURL != nil, Backend.postgresSkipReason))
    func clockOffsetsPostgres() async throws { try await EstimateScenarios.clockOffsets(.postgres) }

    @Test func oneQueryForABatchSQLite() async throws { try await EstimateScenarios.oneQueryForABatch(.sqlite) }

    @Test(.enabled(if: Backend.postgresURL != nil, Backend.postgresSkipReason))
    func oneQueryForABatchPostgres() async throws { try await EstimateScenarios.oneQueryForABatch(.postgres) }

    @Test func readingColumnsSQLite() async throws { try await EstimateScenarios.readingColumns(.sqlite) }

    @Test(.enabled(if: Backend.postgresURL != nil, Backend.postgresSkipReason))
    func readingColumnsPostgres() async throws { try await EstimateScenarios.readingColumns(.postgres) }
}

enum EstimateScenarios {
    static let cafe = (latitude: 52.0907, longitude: 5.1215)
    /// 44 m north of the cafe.
    static let library = (latitude: 52.0911, longitude: 5.1215)

    /// A harness with the cafe's and the library's sentinels enrolled, and their tokens.
    static func cafeAndLibrary(_ backend: Backend) async throws -> (harness: Harness, cafe: String, library: String) {
        let harness = try await Harness.make(backend)
        let (_, cafeToken) = try await harness.sentinel("Cafe Rosa", latitude: cafe.latitude, longitude: cafe.longitude)
        let (_, libraryToken) = try await harness.sentinel("Library", latitude: library.latitude, longitude: library.longitude)
        return (harness, cafeToken, libraryToken)
    }

    static func fusedSealedAndPrivate(_ backend: Backend) async throws {
        let (harness, cafeToken, libraryToken) = try await cafeAndLibrary(backend)
        try await harness.run { client in
            let ann = try await client.owner("ann@example.org")
            let bike = try await client.bike(ann)
            let spare = try await client.bike(ann, name: "Spare", beacon: Fixture.beaconB, major: 3838, minor: 4949)
            for id in [bike.id, spare.id] { #expect(try await client.send(.post, "/v1/bikes/\(id)/missing", token: ann).status == .ok) }
            func post(_ token: String, _ sighting: SightingItem) async throws -> Int {
                try client.decode(SightingResult.self, try await client.send(.post, "/v1/sightings", token: token,
                                                                             json: Fixture.Batch(sightings: [sighting]))).accepted
            }
            func estimate(_ id: String, _ token: String) async throws -> PositionEstimate? {
                try client.decode(SightingPage.self, try await client.send(.get, "/v1/bikes/\(id)/sightings", token: token)).estimate
            }
            #expect(try await estimate(bike.id, ann) == nil, "no sighting, no estimate")

            // Heard by both in the same minute, equally loud: one point between them, from 2 sentinels.
            #expect(try await post(cafeToken, Fixture.sighting(time: "2026-11-21T10:00:00Z", rssi: -75)) == 1)
            #expect(try await post(libraryToken, Fixture.sighting(time: "2026-11-21T10:00:20Z", rssi: -75)) == 1)
            let both = try #require(try await estimate(bike.id, ann))
            #expect(both.sources == 2 && both.at == "2026-11-21T10:00:20.000Z")
            #expect(both.latitude > cafe.latitude && both.latitude < library.latitude, "\(both)")
            #expect(abs(both.longitude - cafe.longitude) < 0.0002, "\(both)")
            #expect(both.radius50 > 0 && both.radius50 < both.radius90, "\(both)")
            #expect(both.words.hasSuffix(", 9 times in 10, from 2 sentinels"), "\(both.words)")
            // The live events (stream and webhook): each arrival carries the estimate as it stood with it.
            let payloads = try await harness.database.withSession { db in
                try await db.raw("SELECT payload FROM events WHERE kind = 'sighting' AND bike_id = \(bind: bike.id) ORDER BY id").all()
                    .map { try $0.decode(column: "payload", as: String.self) }
            }
            let told = try payloads.map { try JSONDecoder().decode(NotificationEvent.self, from: Data($0.utf8)) }
            #expect(told.map { $0.estimate?.sources } == [1, 2] && told.last?.estimate == both, "\(told)")

            // The GeoJSON export: the sightings, then the estimate as a point with its radii in metres.
            let geo = try await client.send(.get, "/v1/bikes/\(bike.id)/sightings?format=geojson", token: ann)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(geo.body.readableBytesView)) as? [String: Any])
            let features = try #require(object["features"] as? [[String: Any]])
            let located = try #require(features.last)
            let properties = try #require(located["properties"] as? [String: Any])
            #expect(features.count == 3 && properties["kind"] as? String == "estimate", "\(features)")
            #expect(properties["radius50_m"] as? Double == both.radius50 && properties["radius90_m"] as? Double == both.radius90)
            #expect(properties["sources"] as? Int == 2 && properties["words"] as? String == both.words)
            #expect((located["geometry"] as? [String: Any])?["coordinates"] as? [Double] == [both.longitude, both.latitude])
            // The page after the first carries no estimate: it is the bike's now, not the page's.
            let firstPage = try client.decode(SightingPage.self, try await client.send(.get, "/v1/bikes/\(bike.id)/sightings?limit=1", token: ann))
            let next = try #require(firstPage.nextCursor)
            #expect(try client.decode(SightingPage.self, try await client.send(
                .get, "/v1/bikes/\(bike.id)/sightings?cursor=\(next)", token: ann)).estimate == nil)

            // One sentinel: its place, with a radius.
            #expect(try await post(cafeToken, Fixture.sighting(uuid: Fixture.beaconB, major: 3838, minor: 4949, time: "2026-11-21T10:00:00Z")) == 1)
            let one = try #require(try await estimate(spare.id, ann))
            #expect(one.latitude == cafe.latitude && one.longitude == cafe.longitude && one.sources == 1, "\(one)")
            #expect(one.radius50 > 0 && one.radius90 > one.radius50, "\(one)")
            #expect(one.words == PositionEstimate.words(radius: one.radius90, place: "Cafe Rosa", sources: 1), "\(one.words)")

            // A share link's page and the theft report say it too (a stranger's view: these sentinels are public).
            let link = try #require(try client.decode(Share.self, try await client.send(
                .post, "/v1/bikes/\(spare.id)/shares", token: ann, json: ShareRequest(expiresIn: 24))).token)
            #expect(try client.decode(SharedBike.self, try await client.send(.get, "/v1/shared/\(link)")).estimate == one)
            let report = String(buffer: try await client.send(.get, "/v1/bikes/\(spare.id)/report", token: ann).body)
            #expect(report.contains("<h2>Most likely position</h2><p>Within \(Int(one.radius90.rounded(.up))) m of Cafe Rosa, 9 times in 10, from 1 sentinel "
                                    + "(around \(SightingEstimate.coordinates(one.latitude, one.longitude))), from the newest sightings below.</p>"),
                    "\(report)")

            // A report of the tag seals the bike: a sighting heard after it, loud at the library, does not move the estimate.
            #expect(try await client.send(.post, "/v1/found/report", json: HiddenTagReport(tag: FoundTagScenarios.tag)).status == .created)
            #expect(try await post(libraryToken, Fixture.sighting(time: "2026-11-21T10:00:40Z", rssi: -45)) == 1)
            #expect(try await harness.database.withSession { db in
                try await db.raw("SELECT COUNT(*) AS n FROM sightings WHERE sealed_case IS NOT NULL").first()?.decode(column: "n", as: Int.self)
            } == 1)
            #expect(try await estimate(bike.id, ann) == both)

            // Another owner's home sentinel: the estimate on its grid, at least the grid's radius, no name.
            let home = PrivacyScenarios.home
            _ = try await client.owner("bob@example.org")
            let (_, bobsHome) = try await SentinelStore(database: harness.database).add(
                name: home.name, latitude: home.latitude, longitude: home.longitude, ownerEmail: "bob@example.org", now: Fixture.enrolled)
            let mallory = try await client.owner("mallory@example.org")
            let decoy = try await client.bike(mallory, name: "Decoy", beacon: Fixture.beaconB, major: 7, minor: 7)
            #expect(try await client.send(.post, "/v1/bikes/\(decoy.id)/missing", token: mallory).status == .ok)
            #expect(try await post(bobsHome, Fixture.sighting(uuid: Fixture.beaconB, major: 7, minor: 7, time: "2026-11-21T10:00:00Z", rssi: -50)) == 1)
            let hidden = try #require(try await estimate(decoy.id, mallory))
            let snapped = SightingPrivacy.snapped(latitude: home.latitude, longitude: home.longitude)
            #expect(hidden.latitude == snapped.latitude && hidden.longitude == snapped.longitude, "\(hidden)")
            #expect(hidden.radius50 >= SightingPrivacy.gridAccuracy && hidden.radius90 >= SightingPrivacy.gridAccuracy, "\(hidden)")
            #expect(hidden.words == "within 500 m of 52.1250, \(SightingRecord.degrees(snapped.longitude)), 9 times in 10, from 1 sentinel")
            #expect(PrivacyScenarios.secrets.allSatisfy { !PrivacyScenarios.withoutTimes("\(hidden)").contains($0) }, "\(hidden)")
        }
    }

    /// A bike ridden north up a street past a sentinel every 100 m, each hearing it 20 s after the last (5 m/s): the
    /// estimate is at the newest sentinel, not the middle of the street, and says it is on the move, in words, in the
    /// API and in the GeoJSON export.
    static func onTheMove(_ backend: Backend) async throws {
        let harness = try await Harness.make(backend)
        var tokens: [String] = []
        for block in 0..<4 {
            tokens.append(try await harness.sentinel("Street \(block)", latitude: cafe.latitude + 0.0009 * Double(block), longitude: cafe.longitude).1)
        }
        let street = tokens
        try await harness.run { client in
            let ann = try await client.owner("ann@example.org")
            let bike = try await client.bike(ann)
            #expect(try await client.send(.post, "/v1/bikes/\(bike.id)/missing", token: ann).status == .ok)
            for (block, token) in street.enumerated() {
                let sighting = Fixture.sighting(time: "2026-11-21T10:0\(block / 3):\(String(format: "%02d", block * 20 % 60))Z", rssi: -70)
                #expect(try client.decode(SightingResult.self, try await client.send(.post, "/v1/sightings", token: token,
                                                                                      json: Fixture.Batch(sightings: [sighting]))).accepted == 1)
            }
            let page = try client.decode(SightingPage.self, try await client.send(.get, "/v1/bikes/\(bike.id)/sightings", token: ann))
            let moving = try #require(page.estimate)
            #expect(moving.at == "2026-11-21T10:01:00.000Z" && moving.sources == 1, "\(moving)")
            #expect(abs(moving.latitude - (cafe.latitude + 0.0027)) < 0.0001, "at the newest sentinel: \(moving)")
            #expect(abs((moving.speed ?? 0) - 5) < 0.5, "\(moving)")
            #expect(moving.words.hasPrefix("within ") && moving.words.hasSuffix(" of Street 3, 9 times in 10, from 1 sentinel, on the move at about 18 km/h"),
                    "\(moving.words)")
            let geo = try await client.send(.get, "/v1/bikes/\(bike.id)/sightings?format=geojson", token: ann)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(geo.body.readableBytesView)) as? [String: Any])
            let properties = try #require((object["features"] as? [[String: Any]])?.last?["properties"] as? [String: Any])
            #expect(properties["speed_m_s"] as? Double == moving.speed && properties["words"] as? String == moving.words, "\(properties)")
        }
    }

    /// A sentinel whose clock is off is not fused with others in the wrong window (#44): the window is on the server's
    /// clock. The library's heartbeat says its clock is 90 s fast, and it stamps by it (within 2 minutes of the
    /// server's, `SentinelHeartbeat.ownClockTolerance`); the station's says 4 minutes fast, so it stamps by the
    /// server's clock (`ServerTime`) and nothing is taken off its stamps. The market's is 110 s slow. The cafe's clock is right.
    static func clockOffsets(_ backend: Backend) async throws {
        let (harness, cafeToken, libraryToken) = try await cafeAndLibrary(backend)
        let (_, stationToken) = try await harness.sentinel("Station", latitude: cafe.latitude, longitude: 5.1221)
        let (_, marketToken) = try await harness.sentinel("Market", latitude: library.latitude, longitude: 5.1221)
        try await harness.run { client in
            for (token, offset) in [(cafeToken, 0.0), (libraryToken, 90), (stationToken, 240), (marketToken, -110)] {
                var beat = SentinelHealthTests.healthy
                beat.clockOffsetSeconds = offset
                #expect(try await HeartbeatScenarios.refresh(client, token, try HeartbeatScenarios.text(beat)).status == .ok)
            }
            let ann = try await client.owner("ann@example.org")
            let beacons = [(Fixture.beaconA, 1), (Fixture.beaconB, 2), (Fixture.beaconC, 3), (Fixture.beaconA, 4)]
            var bikes: [Bike] = []
            for (beacon, minor) in beacons {
                let bike = try await client.bike(ann, name: "Bike \(minor)", beacon: beacon, major: 1, minor: minor)
                #expect(try await client.send(.post, "/v1/bikes/\(bike.id)/missing", token: ann).status == .ok)
                bikes.append(bike)
            }
            func heard(_ bike: Int, by token: String, at time: String) async throws {
                let (beacon, minor) = beacons[bike]
                let sighting = Fixture.sighting(uuid: beacon, major: 1, minor: minor, time: time, rssi: -75)
                #expect(try client.decode(SightingResult.self, try await client.send(.post, "/v1/sightings", token: token,
                                                                                     json: Fixture.Batch(sightings: [sighting]))).accepted == 1)
            }
            func estimate(_ bike: Int) async throws -> PositionEstimate {
                try #require(try client.decode(SightingPage.self, try await client.send(
                    .get, "/v1/bikes/\(bikes[bike].id)/sightings", token: ann)).estimate)
            }

            // Stamped 3 min 50 s before the cafe's sighting, heard 5 min 20 s before it: not in its window.
            try await heard(0, by: cafeToken, at: "2026-11-21T10:00:00Z")
            try await heard(0, by: libraryToken, at: "2026-11-21T09:56:10Z")
            let apart = try await estimate(0)
            #expect(apart.sources == 1 && apart.at == "2026-11-21T10:00:00.000Z", "\(apart)")
            #expect(apart.latitude == cafe.latitude && apart.longitude == cafe.longitude, "\(apart)")

            // Stamped 6 min 20 s after the cafe's, heard 4 min 50 s after it: one window, which ends at the library's
            // sighting on the server's clock (read by stamp alone, the library's window would leave the cafe out).
            try await heard(1, by: cafeToken, at: "2026-11-21T10:00:00Z")
            try await heard(1, by: libraryToken, at: "2026-11-21T10:06:20Z")
            let together = try await estimate(1)
            #expect(together.sources == 2 && together.at == "2026-11-21T10:04:50.000Z", "\(together)")
            #expect(together.latitude > cafe.latitude && together.latitude < library.latitude, "\(together)")

            // The station, 4 minutes fast, stamps by the server's clock: 4 min 30 s before the cafe's is in its window
            // (taking its 240 s off would put it 8 min 30 s before, and out).
            try await heard(2, by: cafeToken, at: "2026-11-21T10:00:00Z")
            try await heard(2, by: stationToken, at: "2026-11-21T09:55:30Z")
            let station = try await estimate(2)
            #expect(station.sources == 2 && station.at == "2026-11-21T10:00:00.000Z", "\(station)")

            // The market's clock is 110 s slow: stamped 6 min 40 s before the cafe's, heard 4 min 50 s before it, so in its
            // window. The query reads back from the newest stamp's server time by the window and the clock tolerance,
            // for a stamp can be that much before its server time (by the window alone, this sighting was left out).
            try await heard(3, by: cafeToken, at: "2026-11-21T10:00:00Z")
            try await heard(3, by: marketToken, at: "2026-11-21T09:53:20Z")
            let market = try await estimate(3)
            #expect(market.sources == 2 && market.at == "2026-11-21T10:00:00.000Z", "\(market)")
        }
    }

    /// A batch's bikes are estimated in one query, and each gets its own: the same estimate as read on its own, in
    /// the batch's events too. A bike whose window holds more than the query's share of rows (500 a bike) does not
    /// crowd another out: the bike sorting first has 1 000 sightings, and the one sorting last still gets its estimate.
    static func oneQueryForABatch(_ backend: Backend) async throws {
        let (harness, cafeToken, libraryToken) = try await cafeAndLibrary(backend)
        try await harness.run { client in
            let ann = try await client.owner("ann@example.org")
            var bikes: [(bike: Bike, minor: Int)] = []
            for minor in 1...3 {
                let bike = try await client.bike(ann, name: "Bike \(minor)", minor: minor)
                #expect(try await client.send(.post, "/v1/bikes/\(bike.id)/missing", token: ann).status == .ok)
                bikes.append((bike, minor))
            }
            bikes.sort { $0.bike.id < $1.bike.id }
            let (crowded, first, last) = (bikes[0], bikes[1], bikes[2])
            func post(_ token: String, _ sightings: [SightingItem]) async throws {
                #expect(try client.decode(SightingResult.self, try await client.send(
                    .post, "/v1/sightings", token: token, json: Fixture.Batch(sightings: sightings))).accepted == sightings.count)
            }
            func alone(_ bike: Bike) async throws -> PositionEstimate? {
                try client.decode(SightingPage.self, try await client.send(.get, "/v1/bikes/\(bike.id)/sightings", token: ann)).estimate
            }

            // Two bikes in each sentinel's batch, heard unequally: each its own point, the same as read alone.
            try await post(cafeToken, [Fixture.sighting(minor: first.minor, time: "2026-11-21T10:00:00Z", rssi: -60),
                                       Fixture.sighting(minor: last.minor, time: "2026-11-21T10:00:00Z", rssi: -80)])
            try await post(libraryToken, [Fixture.sighting(minor: first.minor, time: "2026-11-21T10:00:10Z", rssi: -80),
                                          Fixture.sighting(minor: last.minor, time: "2026-11-21T10:00:10Z", rssi: -60)])
            let nearCafe = try #require(try await alone(first.bike)), nearLibrary = try #require(try await alone(last.bike))
            #expect(nearCafe.sources == 2 && nearLibrary.sources == 2)
            #expect(nearCafe.latitude < nearLibrary.latitude, "\(nearCafe) \(nearLibrary)")
            let told = try await harness.database.withSession { db in
                try await db.raw("SELECT bike_id, payload FROM events WHERE kind = 'sighting' ORDER BY id").all().map {
                    (bike: try $0.decode(column: "bike_id", as: String.self),
                     event: try JSONDecoder().decode(NotificationEvent.self, from: Data(try $0.decode(column: "payload", as: String.self).utf8)))
                }
            }
            #expect(told.filter { $0.bike == first.bike.id }.last?.event.estimate == nearCafe, "\(told)")
            #expect(told.filter { $0.bike == last.bike.id }.last?.event.estimate == nearLibrary, "\(told)")

            // 1 000 sightings of the bike sorting first fill the query's 500 rows a bike for two bikes.
            for second in [20, 30] {
                try await post(cafeToken, (0..<SightingBatch<SightingItem>.maxItems).map { _ in
                    Fixture.sighting(minor: crowded.minor, time: "2026-11-21T10:00:\(second)Z", rssi: -70)
                })
            }
            let both = try await harness.database.withSession {
                try await SightingEstimates.estimates(bikeIDs: [crowded.bike.id, last.bike.id], for: .owner, in: $0)
            }
            #expect(both[last.bike.id] == nearLibrary, "\(both)")
            let crowdedAlone = try #require(try await alone(crowded.bike))
            #expect(both[crowded.bike.id] == crowdedAlone, "\(both)")
        }
    }

    /// What an estimate reads of a heartbeat is stored beside it by every write of one (the first, a steady one,
    /// one that changes the state), and migration 170 fills it once for heartbeats stored before the columns.
    static func readingColumns(_ backend: Backend) async throws {
        let harness = try await Harness.make(backend)
        let (sentinel, token) = try await harness.sentinel("Library", latitude: library.latitude, longitude: library.longitude)
        @Sendable func stored() async throws -> SentinelReading? {
            try await harness.database.withSession { db in
                try await db.raw("""
                    SELECT \(unsafeRaw: SentinelReading.columns.joined(separator: ", ")) FROM sentinel_health WHERE sentinel_id = \(bind: sentinel.id)
                    """).first().map(SentinelReading.init(row:))
            }
        }
        try await harness.run { client in
            var beat = SentinelHealthTests.healthy
            beat.clockOffsetSeconds = 90
            beat.pathLoss = SentinelReadingTests.twoPoint
            #expect(try await HeartbeatScenarios.refresh(client, token, try HeartbeatScenarios.text(beat)).status == .ok)
            #expect(try await stored() == SentinelReading(stampOffset: 90, pathLoss: SentinelReadingTests.twoPoint))
            beat.clockOffsetSeconds = -3
            beat.pathLoss = SentinelPathLoss(calibration: .onePoint, exponent: 1.5, nearFieldExponent: 1.5)
            #expect(try await HeartbeatScenarios.refresh(client, token, try HeartbeatScenarios.text(beat)).status == .ok)
            #expect(try await stored() == SentinelReading(beat))
            beat.scanning = false
            beat.pathLoss = nil
            #expect(try await HeartbeatScenarios.refresh(client, token, try HeartbeatScenarios.text(beat)).status == .ok)
            #expect(try await stored() == SentinelReading(stampOffset: -3, pathLoss: nil), "a changed state, and no calibration said")

            beat.pathLoss = SentinelReadingTests.twoPoint
            #expect(try await HeartbeatScenarios.refresh(client, token, try HeartbeatScenarios.text(beat)).status == .ok)
            try await harness.database.withSession { db in
                try await db.raw("UPDATE sentinel_health SET stamp_offset_s = NULL, calibration = NULL, exponent = NULL, near_exponent = NULL").run()
            }
            #expect(try await stored() == SentinelReading(stampOffset: nil, pathLoss: nil))
            try await harness.database.withSession { try await SentinelReading.backfill(in: $0) }
            #expect(try await stored() == SentinelReading(stampOffset: -3, pathLoss: SentinelReadingTests.twoPoint))
        }
    }
}
