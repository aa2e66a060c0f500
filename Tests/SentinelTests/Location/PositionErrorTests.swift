import Beacon
import Foundation
import GPSD
import Registry
import Testing
import TestSupport
@testable import Sentinel

/// How far a roaming sentinel's sightings are placed from where it really was: the real capture
/// (Tests/Fixtures/captures/govee-h5100.btsnoop) replayed through the core while gpsd's fixes of a
/// recorded walk (Tests/Fixtures/gpsd/haicom-305N.json) reach `FixKeeper` at their recorded times.
/// Each reading is compared with the track, interpolated, at the reading's time.
@Suite struct PositionErrorTests {
    /// One second of gpsd fix: where and when.
    struct TrackPoint {
        var time: Double
        var latitude: Double
        var longitude: Double
    }

    /// Great-circle distance in metres (haversine on a sphere of the Earth's mean radius).
    static func metres(_ a: (Double, Double), _ b: (Double, Double)) -> Double {
        let radians = Double.pi / 180
        let dLat = (b.0 - a.0) * radians, dLon = (b.1 - a.1) * radians
        let h = sin(dLat / 2) * sin(dLat / 2) + cos(a.0 * radians) * cos(b.0 * radians) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * 6_371_008.8 * asin(min(1, h.squareRoot()))
    }

    /// The track's position at `time`, interpolated between the fixes around it.
    static func position(on track: [TrackPoint], at time: Double) -> (Double, Double)? {
        guard let after = track.firstIndex(where: { $0.time >= time }) else { return nil }
        let b = track[after]
        guard after > 0 else { return b.time == time ? (b.latitude, b.longitude) : nil }
        let a = track[after - 1]
        let f = (time - a.time) / (b.time - a.time)
        return (a.latitude + f * (b.latitude - a.latitude), a.longitude + f * (b.longitude - a.longitude))
    }

    static func quantile(_ sorted: [Double], _ q: Double) -> Double {
        sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * q).rounded(.up)))]
    }

    /// One drive of the walk past a stretch of the capture (`shift` moves it onto the walk's
    /// clock): the distances, metres, of every reading's and every passing sighting's place from
    /// the track at the time.
    static func drive(_ ads: [Advertisement], shift: Double, reports: [GPSDPosition], track: [TrackPoint])
        -> (readings: [Double], sightings: [Double]) {
        let beacons = Set(ads.map(\.beacon))
        var core = SentinelCore(registry: MissingRegistry(version: 1, bikes: beacons.map { TestValues.bike($0) }), sighting: .init(presentInterval: 120))
        var keeper = FixKeeper(maxFixAge: 10)
        var passes = PassingTracker(passInterval: 30)
        var nextFix = 0
        var readingErrors: [Double] = []
        var sightings: [Sighting] = []
        var readings: [(beacon: BeaconID, time: Double, rssi: Int)] = []
        for var ad in ads {
            ad.time += shift
            while nextFix < reports.count, let time = reports[nextFix].time, time <= ad.time {
                keeper.take(reports[nextFix], at: time)
                nextFix += 1
            }
            sightings += passes.finish(at: ad.time, makeID: { UUID() })
            _ = core.replay(ad, makeID: { UUID() })
            guard core.registry.contains(ad.beacon), !keeper.isParked(at: ad.time) else { continue }
            let place = keeper.place(at: ad.time)
            passes.observe(ad.beacon, time: ad.time, rssi: ad.rssi, place: place, estimate: core.estimate(of: ad.beacon, at: ad.time))
            readings.append((ad.beacon, ad.time, ad.rssi))
            guard case let .fix(fix) = place, let truth = position(on: track, at: ad.time) else {
                Issue.record("a reading at \(ad.time) within the walk has no position")
                continue
            }
            readingErrors.append(metres((fix.latitude, fix.longitude), truth))
        }
        sightings += passes.finish(at: .infinity, force: true, makeID: { UUID() })

        // A passing sighting is placed where its signal peaked: compare with the track then.
        var sightingErrors: [Double] = []
        for sighting in sightings {
            guard case let .fix(fix) = sighting.place,
                  let peak = readings.first(where: { $0.beacon == sighting.beacon && $0.time >= sighting.firstSeen && $0.rssi == sighting.rssi }),
                  let truth = position(on: track, at: peak.time) else {
                Issue.record("passing sighting of \(sighting.beacon) from \(sighting.firstSeen) has no position")
                continue
            }
            sightingErrors.append(metres((fix.latitude, fix.longitude), truth))
        }
        return (readingErrors, sightingErrors)
    }

    /// The bound: a sighting is placed at the last fix before it, so it can be off by at most the
    /// way walked since, one step between fixes; p95 against the p95 step, the worst against the longest.
    @Test func sightingsArePlacedWithinOneFixStepOfTheTrack() async throws {
        var framer = GPSDLineFramer()
        let reports = framer.lines(try Data(contentsOf: Paths.fixture("gpsd/haicom-305N.json"))).compactMap { line in
            // A fix without its own time (the receiver's first 2D ones) has no place on the track's timeline.
            if case let .position(position)? = try? GPSDProtocol.decode(line).get(), position.hasPosition, position.time != nil { return position }
            return nil
        }
        // gpsd reports each second's fix once per NMEA sentence; the track keeps the last of each second.
        var track: [TrackPoint] = []
        for report in reports {
            guard let time = report.time, let latitude = report.latitude, let longitude = report.longitude else { continue }
            if track.last?.time == time { track.removeLast() }
            track.append(TrackPoint(time: time, latitude: latitude, longitude: longitude))
        }
        let steps = zip(track, track.dropFirst()).map { Self.metres(($0.latitude, $0.longitude), ($1.latitude, $1.longitude)) }.sorted()
        let moving = steps.filter { $0 > 0.5 }

        // The walk lasts about a minute, the capture six: the walk is driven through each of the
        // capture's stretches of its length in turn, the capture's clock moved onto the walk's.
        let ads = try await SentinelCoreTests.advertisements()
        let walk = try #require(track.last).time - (try #require(track.first).time)
        let captureStart = try #require(ads.first).time
        var readingErrors: [Double] = []
        var sightingErrors: [Double] = []
        var start = captureStart
        while start <= (ads.last?.time ?? 0) {
            let stretch = ads.filter { $0.time >= start && $0.time < start + walk }
            let errors = Self.drive(stretch, shift: track[0].time - start, reports: reports, track: track)
            readingErrors += errors.readings
            sightingErrors += errors.sightings
            start += walk
        }
        readingErrors.sort()
        sightingErrors.sort()
        // Enough to measure: the capture's 99 readings and 34 passes against 66 steps of the walk.
        try #require(readingErrors.count >= 90 && sightingErrors.count >= 30 && moving.count >= 60)
        let step = Self.quantile(moving, 0.95)
        func figures(_ e: [Double]) -> String {
            String(format: "n=%d median %.2f m, p95 %.2f m, max %.2f m", e.count, Self.quantile(e, 0.5), Self.quantile(e, 0.95), e.last ?? 0)
        }
        print("fix-to-sighting position error against the track: readings \(figures(readingErrors)); passing sightings \(figures(sightingErrors)); "
              + String(format: "step between fixes while moving: median %.2f m, p95 %.2f m, max %.2f m",
                                                 Self.quantile(moving, 0.5), step, moving.last ?? 0))
        #expect(Self.quantile(readingErrors, 0.95) <= step)
        #expect(Self.quantile(sightingErrors, 0.95) <= step)
        #expect((readingErrors.last ?? .infinity) <= (steps.last ?? 0))
    }
}
