import Beacon
import Foundation
import Proximity
import Regions
import Testing
@testable import Sentinel

@Suite struct SightingTrackerTests {
    let bike = TestValues.intel
    let t0 = TestValues.t0
    let region = Region.anyBeacon(name: "sighting")

    func reading(_ dt: Double, _ rssi: Int, _ zone: Zone = .near, _ distance: Double? = 2) -> SightingTracker.Reading {
        .init(time: t0 + dt, rssi: rssi, distance: distance, zone: zone)
    }

    /// Runs a scripted visit: readings and events in time order, `true` for still-missing.
    func run(_ tracker: inout SightingTracker, _ steps: [(SightingTracker.Reading?, RegionEvent?)], missing: Bool = true) -> [Sighting] {
        var out: [Sighting] = []
        for (r, e) in steps {
            if let r { tracker.observe(bike, r) }
            if let e, let s = tracker.handle(e, isMissing: missing, makeID: { UUID() }) { out.append(s) }
        }
        return out
    }

    @Test func arrivalCarriesTheReadingsBeforeEntry() {
        var tracker = SightingTracker()
        let out = run(&tracker, [
            (reading(0, -80, .far, 5), nil),
            (reading(1, -72), .entered(region: region, beacon: bike, time: t0 + 1)),
        ])
        #expect(out.count == 1)
        let arrived = out[0]
        #expect(arrived.event == .arrived)
        #expect(arrived.time == t0 + 1)
        #expect(arrived.firstSeen == t0)
        #expect(arrived.lastSeen == t0 + 1)
        #expect(arrived.rssi == -72)
        #expect(arrived.zone == .near)
        #expect(arrived.distance == 2)
    }

    @Test func presentAtMostEveryIntervalWithTheBestSinceTheLastReport() {
        var tracker = SightingTracker(configuration: .init(presentInterval: 300))
        var steps: [(SightingTracker.Reading?, RegionEvent?)] = [(reading(0, -75), .entered(region: region, beacon: bike, time: t0))]
        // Readings every 10 s for 11 minutes, still-inside every 60 s (the monitor's rhythm).
        for s in stride(from: 10.0, through: 660, by: 10) {
            let r = s == 200 ? reading(s, -55, .immediate, 0.4) : reading(s, -78)
            let e: RegionEvent? = s.truncatingRemainder(dividingBy: 60) == 0 ? .stillInside(region: region, beacon: bike, time: t0 + s, lastSeen: t0 + s) : nil
            steps.append((r, e))
        }
        let out = run(&tracker, steps)
        #expect(out.map(\.event) == [.arrived, .present, .present])
        #expect(out.map(\.time) == [t0, t0 + 300, t0 + 600])
        // The first present carries the strongest reading of its stretch; the second does not see it.
        #expect(out[1].rssi == -55 && out[1].zone == .immediate && out[1].distance == 0.4)
        #expect(out[2].rssi == -78 && out[2].zone == .near)
        #expect(out[2].firstSeen == t0 && out[2].lastSeen == t0 + 600)
    }

    @Test func departureCarriesLastSeen() {
        var tracker = SightingTracker()
        let out = run(&tracker, [
            (reading(0, -70), .entered(region: region, beacon: bike, time: t0)),
            (reading(20, -74), nil),
            (nil, .exited(region: region, beacon: bike, time: t0 + 50, lastSeen: t0 + 20)),
        ])
        #expect(out.map(\.event) == [.arrived, .departed])
        let departed = out[1]
        #expect(departed.time == t0 + 50)
        #expect(departed.firstSeen == t0)
        #expect(departed.lastSeen == t0 + 20)
        #expect(departed.rssi == -74)
        // The visit is over: a stray still-inside says nothing.
        #expect(tracker.handle(.stillInside(region: region, beacon: bike, time: t0 + 400, lastSeen: t0 + 20), isMissing: true, makeID: { UUID() }) == nil)
    }

    @Test func aRecoveredBikeGetsNoMoreReports() {
        var tracker = SightingTracker(configuration: .init(presentInterval: 60))
        _ = run(&tracker, [(reading(0, -70), .entered(region: region, beacon: bike, time: t0))])
        tracker.observe(bike, reading(100, -70))
        #expect(tracker.handle(.stillInside(region: region, beacon: bike, time: t0 + 120, lastSeen: t0 + 100), isMissing: false, makeID: { UUID() }) == nil)
        #expect(tracker.handle(.exited(region: region, beacon: bike, time: t0 + 200, lastSeen: t0 + 100), isMissing: true, makeID: { UUID() }) == nil)
        #expect(tracker.visiting.isEmpty)
    }

    @Test func pruneEndsVisitsOfRecoveredBikesAndForgetsStaleReadings() {
        var tracker = SightingTracker(configuration: .init(presentInterval: 60, forgetAfter: 100))
        _ = run(&tracker, [(reading(0, -70), .entered(region: region, beacon: bike, time: t0))])
        tracker.observe(TestValues.blueCharm, reading(0, -90))
        tracker.prune(now: t0 + 500, isMissing: { $0 != bike })
        #expect(tracker.visiting.isEmpty)
        // The blue-charm reading was forgotten: entering now has nothing to report from.
        #expect(tracker.handle(.entered(region: region, beacon: TestValues.blueCharm, time: t0 + 500), isMissing: true, makeID: { UUID() }) == nil)
    }

    @Test func eachSightingGetsItsOwnIDAndRSSIStaysInTheAPIRange() {
        var tracker = SightingTracker(configuration: .init(presentInterval: 60))
        var ids = [UUID(), UUID(), UUID()].makeIterator()
        tracker.observe(bike, reading(0, -128, .unknown, nil))
        let a = tracker.handle(.entered(region: region, beacon: bike, time: t0), isMissing: true, makeID: { ids.next() ?? UUID() })
        tracker.observe(bike, reading(30, 40, .immediate, 0.1))
        let p = tracker.handle(.stillInside(region: region, beacon: bike, time: t0 + 60, lastSeen: t0 + 30), isMissing: true, makeID: { ids.next() ?? UUID() })
        #expect(a?.rssi == -127)
        #expect(p?.rssi == 20)
        #expect(a?.id != p?.id)
    }
}
