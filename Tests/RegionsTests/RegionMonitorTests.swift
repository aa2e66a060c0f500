import Beacon
import Foundation
import Proximity
import Regions
import Testing

/// The monitor's rules with plain values: estimates are written by hand, time is a number.
struct RegionMonitorTests {
    static let uuid = UUID(uuidString: "B5B182C7-EAB1-4988-AA99-B5C1517008D9")!
    static let bike = BeaconID(uuid: uuid, major: 1, minor: 25626)

    static func at(_ time: Double, distance: Double = 1) -> ProximityEstimate {
        ProximityEstimate(time: time, filteredRSSI: -59, distance: distance, distanceUncertainty: nil, zone: Zone(distance: distance))
    }

    /// Feeds readings of `beacon` at `times`, ticking before each; returns all events.
    static func feed(_ monitor: inout RegionMonitor, _ beacon: BeaconID = bike, times: some Sequence<Double>, distance: Double = 1) -> [RegionEvent] {
        var events: [RegionEvent] = []
        for t in times {
            events += monitor.tick(at: t)
            events += monitor.observe(beacon, at(t, distance: distance))
        }
        return events
    }

    static func ticks(_ monitor: inout RegionMonitor, from: Double, through: Double, step: Double = 0.5) -> [RegionEvent] {
        stride(from: from, through: through, by: step).flatMap { monitor.tick(at: $0) }
    }

    let region = Region(name: "garage", beacon: bike)

    @Test func entersOnSecondReadingWithinFiveSeconds() {
        var monitor = RegionMonitor(regions: [region])
        #expect(monitor.observe(Self.bike, Self.at(100)).isEmpty)
        #expect(!monitor.isInside(region, beacon: Self.bike))
        #expect(monitor.observe(Self.bike, Self.at(104.5)) == [.entered(region: region, beacon: Self.bike, time: 104.5)])
        #expect(monitor.isInside(region, beacon: Self.bike))
    }

    @Test func strayReadingsDoNotEnter() {
        var monitor = RegionMonitor(regions: [region])
        // One reading, then another 6 s later, then one 40 s later: never two within 5 s.
        let events = Self.feed(&monitor, times: [0, 6, 46]) + Self.ticks(&monitor, from: 46, through: 100)
        #expect(events.isEmpty)
        #expect(!monitor.isInside(region, beacon: Self.bike))
    }

    @Test func exitsAfterTheAbsenceTimeoutAndNotBefore() throws {
        var monitor = RegionMonitor(regions: [region])
        _ = Self.feed(&monitor, times: stride(from: 0.0, through: 20, by: 1))
        #expect(monitor.absenceTimeout(for: Self.bike) == 10)
        #expect(Self.ticks(&monitor, from: 20, through: 30).isEmpty)
        #expect(monitor.isInside(region, beacon: Self.bike))
        #expect(monitor.tick(at: 30.5) == [.exited(region: region, beacon: Self.bike, time: 30.5, lastSeen: 20)])
        #expect(!monitor.isInside(region, beacon: Self.bike))
    }

    @Test func absenceTimeoutGrowsForASlowBeacon() throws {
        var monitor = RegionMonitor(regions: [region])
        // 0.1 Hz: no two readings within 5 s, so it enters once its rhythm is known (3 intervals).
        let early = Self.feed(&monitor, times: [0, 10, 20])
        #expect(early.isEmpty)
        #expect(Self.feed(&monitor, times: [30]) == [.entered(region: region, beacon: Self.bike, time: 30)])
        _ = Self.feed(&monitor, times: stride(from: 40.0, through: 100, by: 10))
        // k = 4 times its 10 s interval, not the 10 s floor that would drop it between readings.
        #expect(monitor.absenceTimeout(for: Self.bike) == 40)
        #expect(Self.ticks(&monitor, from: 100, through: 140).isEmpty)
        #expect(monitor.tick(at: 140.5) == [.exited(region: region, beacon: Self.bike, time: 140.5, lastSeen: 100)])
    }

    /// A `near` region weighs each reading in its membership belief: lasting evidence enters,
    /// a bike parked on the 3 m boundary or a stream of outliers stays inside, and a clear walk
    /// out leaves in seconds while the beacon is still heard.
    @Test func requiredZoneEntersOnLastingEvidenceAndHoldsOnTheBoundary() throws {
        let garage = Region(name: "garage", beacon: Self.bike, requiredZone: .near)
        var monitor = RegionMonitor(regions: [garage])
        // Heard at 3.4 m (far): not close enough to enter, however long.
        #expect(Self.feed(&monitor, times: stride(from: 0.0, through: 10, by: 1), distance: 3.4).isEmpty)
        // At 1.5 m it enters on lasting evidence: not on the first reading, within five.
        let entering = Self.feed(&monitor, times: stride(from: 11.0, through: 20, by: 1), distance: 1.5)
        let entered = try #require(entering.first)
        #expect(entering.count == 1)
        #expect(entered.time > 11 && entered.time <= 15, "entered at \(entered.time)")
        // Parked on the 3 m boundary for ten minutes, readings either side of it (geometric
        // mean 2.97 m): stays inside.
        var parked: [RegionEvent] = []
        for (i, t) in stride(from: 21.0, through: 620, by: 1).enumerated() {
            parked += monitor.tick(at: t)
            parked += monitor.observe(Self.bike, Self.at(t, distance: i % 2 == 0 ? 2.6 : 3.4))
        }
        #expect(parked.allSatisfy { if case .stillInside = $0 { true } else { false } })
        // Single readings clearly outside (8 m), each followed by three inside (2 m), do not exit either.
        var outliers: [RegionEvent] = []
        for (i, t) in stride(from: 621.0, through: 700, by: 1).enumerated() {
            outliers += monitor.tick(at: t)
            outliers += monitor.observe(Self.bike, Self.at(t, distance: i % 4 == 0 ? 8 : 2))
        }
        #expect(!outliers.contains { if case .exited = $0 { true } else { false } })
        // Clearly outside (5 m) for good, still heard: leaves within ten seconds, not on the first reading.
        let leaving = Self.feed(&monitor, times: stride(from: 701.0, through: 720, by: 1), distance: 5)
        let exit = try #require(leaving.first)
        #expect(leaving.count == 1)
        guard case let .exited(_, _, time, lastSeen) = exit else { Issue.record("\(exit)"); return }
        #expect(time > 701 && time <= 711, "left at \(time)")
        #expect(lastSeen < time, "the last reading that still said inside")
    }

    /// A 2 m doorway: an unknown estimate is no evidence, readings just beyond 2 m never enter,
    /// readings well within enter, and readings that keep saying 2.6 m take it out.
    @Test func distanceLimitEntersWithinItAndLeavesOnLastingEvidenceBeyond() throws {
        let doorway = Region(name: "doorway", beacon: Self.bike, maximumDistance: 2)
        var monitor = RegionMonitor(regions: [doorway])
        let unknown = ProximityEstimate(time: 0, filteredRSSI: nil, distance: nil, distanceUncertainty: nil, zone: .unknown)
        #expect(monitor.observe(Self.bike, unknown).isEmpty)
        #expect(Self.feed(&monitor, times: stride(from: 1.0, through: 30, by: 1), distance: 2.2).isEmpty, "near, but beyond 2 m")
        let entering = Self.feed(&monitor, times: stride(from: 31.0, through: 40, by: 1), distance: 1)
        #expect(entering.count == 1)
        #expect(try #require(entering.first).time <= 36)
        let leaving = Self.feed(&monitor, times: stride(from: 41.0, through: 80, by: 1), distance: 2.6)
        #expect(leaving.count == 1)
        guard case let .exited(_, _, time, lastSeen)? = leaving.first else { Issue.record("\(leaving)"); return }
        #expect(time > 42, "one reading beyond the limit is not enough")
        #expect(lastSeen <= time)
    }

    @Test func uuidAndMajorRegionsTrackEachBeaconIndependently() {
        let fleet = Region(name: "fleet", uuid: Self.uuid)
        let depot = Region(name: "depot 1", uuid: Self.uuid, major: 1)
        let a = BeaconID(uuid: Self.uuid, major: 1, minor: 1)
        let b = BeaconID(uuid: Self.uuid, major: 1, minor: 2)
        let c = BeaconID(uuid: Self.uuid, major: 2, minor: 1)
        let stranger = BeaconID(uuid: UUID(uuidString: "426C7565-4368-6172-6D42-6561636F6E73")!, major: 1, minor: 1)
        var monitor = RegionMonitor(regions: [fleet, depot])
        var events: [RegionEvent] = []
        // Four readings each: three intervals, so the timeout has adapted past its cold start.
        for t in [0.0, 1, 2, 3] {
            for beacon in [a, b, c, stranger] { events += monitor.observe(beacon, Self.at(t)) }
        }
        let entered = Set(events.compactMap { e -> String? in
            if case let .entered(region, beacon, _) = e { "\(region.name) \(beacon.minor)/\(beacon.major)" } else { nil }
        })
        #expect(entered == ["fleet 1/1", "fleet 2/1", "fleet 1/2", "depot 1 1/1", "depot 1 2/1"])
        #expect(monitor.trackedBeaconCount == 3, "a beacon in no region is not tracked")
        // b goes quiet; a and c keep advertising: only b leaves, from both its regions.
        var later: [RegionEvent] = []
        for t in stride(from: 4.0, through: 22, by: 1) {
            later += monitor.tick(at: t)
            later += monitor.observe(a, Self.at(t))
            later += monitor.observe(c, Self.at(t))
        }
        #expect(Set(later.map { "\($0.region.name) \($0.beacon.minor)" }) == ["fleet 2", "depot 1 2"])
        #expect(later.allSatisfy { if case .exited(_, b, 14, 3) = $0 { true } else { false } })
        #expect(monitor.isInside(fleet, beacon: a) && monitor.isInside(depot, beacon: a) && monitor.isInside(fleet, beacon: c))
        #expect(!monitor.isInside(depot, beacon: c))
    }

    @Test func forgetsBeaconsUnheardForTheForgetPeriod() {
        let street = Region(name: "street", uuid: Self.uuid)
        var monitor = RegionMonitor(regions: [street])
        // A busy street: 20 new bikes pass every minute for an hour, each heard for 20 s.
        var peak = 0
        var entered = 0, exited = 0
        for minute in 0..<60 {
            for second in 0..<60 {
                let t = Double(minute * 60 + second)
                for event in monitor.tick(at: t) {
                    if case .exited = event { exited += 1 }
                }
                for i in 0..<20 where second < 20 {
                    let beacon = BeaconID(uuid: Self.uuid, major: UInt16(minute), minor: UInt16(i))
                    for event in monitor.observe(beacon, Self.at(t)) {
                        if case .entered = event { entered += 1 }
                    }
                }
                peak = max(peak, monitor.trackedBeaconCount)
            }
        }
        // Forget period 300 s: at most the last ~6 minutes of passers-by are held.
        #expect(peak <= 20 * 7)
        #expect(entered == 20 * 60)
        _ = monitor.tick(at: 3600 + 301)
        #expect(monitor.trackedBeaconCount == 0)
        #expect(exited == entered, "every bike exits before it is forgotten")
    }

    @Test func reportsStillInsideAtTheConfiguredPeriod() {
        var monitor = RegionMonitor(regions: [region], configuration: RegionMonitorConfiguration(reportPeriod: 30))
        var reports: [Double] = []
        for t in stride(from: 0.0, through: 100, by: 1) {
            for case let .stillInside(_, _, time, lastSeen) in monitor.tick(at: t) + monitor.observe(Self.bike, Self.at(t)) {
                #expect(lastSeen == time || lastSeen == time - 1)
                reports.append(time)
            }
        }
        #expect(reports == [31, 61, 91])
    }

    @Test func ignoresReadingsFromThePastAndNonFiniteTimes() {
        var monitor = RegionMonitor(regions: [region])
        _ = Self.feed(&monitor, times: [8, 9, 10, 11])
        #expect(monitor.observe(Self.bike, Self.at(5)).isEmpty)
        #expect(monitor.observe(Self.bike, Self.at(.nan)).isEmpty)
        #expect(monitor.observe(Self.bike, Self.at(.infinity)).isEmpty)
        #expect(monitor.tick(at: 21.5) == [.exited(region: region, beacon: Self.bike, time: 21.5, lastSeen: 11)])
    }
}

/// The false departure a real Govee capture showed: two frames 0.1 s apart, then 24 s of silence.
struct ColdStartTests {
    static let bike = BeaconID("494E5445-4C4C-495F-524F-434B535F4857:20597:62207")!
    let region = Region(name: "garage", beacon: Self.bike)

    func reading(_ t: Double) -> ProximityEstimate {
        ProximityEstimate(time: t, filteredRSSI: -60, distance: 1, distanceUncertainty: 0.2, zone: .near)
    }

    @Test func aTagWithNoRhythmYetIsNotDroppedAfterTenSeconds() {
        var monitor = RegionMonitor(regions: [region])
        var events = monitor.observe(Self.bike, reading(0)) + monitor.observe(Self.bike, reading(0.1))
        for t in stride(from: 1.0, through: 24, by: 1) { events += monitor.tick(at: t) }
        events += monitor.observe(Self.bike, reading(24.3))
        #expect(events == [.entered(region: region, beacon: Self.bike, time: 0.1)])
        #expect(monitor.absenceTimeout(for: Self.bike) == 30)
    }

    @Test func onceItsRhythmIsKnownItLeavesFast() {
        var monitor = RegionMonitor(regions: [region])
        var events: [RegionEvent] = []
        for t in [0.0, 1, 2, 3] { events += monitor.observe(Self.bike, reading(t)) }
        for t in stride(from: 4.0, through: 20, by: 1) { events += monitor.tick(at: t) }
        #expect(events.last == .exited(region: region, beacon: Self.bike, time: 14, lastSeen: 3))
    }
}
