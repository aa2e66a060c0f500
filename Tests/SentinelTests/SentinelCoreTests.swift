import Beacon
import Foundation
import Proximity
import Registry
import Scanning
import Testing
import TestSupport
@testable import Sentinel

/// The whole pure core on a real capture from a Raspberry Pi (Tests/Fixtures/captures, MIT,
/// from GoveeBTTempLogger; see SOURCE.txt there): six Govee iBeacons over 386 s.
@Suite struct SentinelCoreTests {
    static let missing = BeaconID("494E5445-4C4C-495F-524F-434B535F4857:20596:25984")!
    static let own = BeaconID("494E5445-4C4C-495F-524F-434B535F4857:20597:62207")!

    static func advertisements() async throws -> [Advertisement] {
        let scanner = CaptureScanner(path: Paths.fixture("captures/govee-h5100.btsnoop").path)
        var all: [Advertisement] = []
        for try await batch in scanner.advertisementBatches() { all += batch }
        return all
    }

    /// Feeds the capture with a tick every second of capture time, then ticks on past the end.
    static func replay(_ core: inout SentinelCore, _ ads: [Advertisement], after: ((Double, inout SentinelCore) -> Void)? = nil) -> SentinelCore.Output {
        var out = SentinelCore.Output()
        guard let first = ads.first?.time, let last = ads.last?.time else { return out }
        var next = first
        func collect(_ o: SentinelCore.Output) {
            out.sightings += o.sightings
            out.alarms += o.alarms
        }
        for ad in ads {
            while next <= ad.time {
                collect(core.tick(at: next, makeID: { UUID() }))
                after?(next, &core)
                next += 1
            }
            collect(core.observe(ad, makeID: { UUID() }))
        }
        while next <= last + 400 {
            collect(core.tick(at: next, makeID: { UUID() }))
            next += 1
        }
        return out
    }

    @Test func aMissingBikeArrivesIsPresentAndDeparts() async throws {
        let ads = try await Self.advertisements()
        let heard = ads.filter { $0.beacon == Self.missing }.map(\.time)
        var core = SentinelCore(registry: MissingRegistry(version: 1, bikes: [TestValues.bike(Self.missing)]),
                                sighting: .init(presentInterval: 120))
        let out = Self.replay(&core, ads)
        #expect(out.alarms.isEmpty)
        #expect(out.sightings.allSatisfy { $0.beacon == Self.missing })
        let events = out.sightings.map(\.event)
        #expect(events.first == .arrived)
        #expect(events.last == .departed)
        #expect(events.dropFirst().dropLast().allSatisfy { $0 == .present })
        #expect(events.count >= 3)
        let times = out.sightings.map(\.time)
        for (a, b) in zip(times, times.dropFirst().dropLast()) { #expect(b - a >= 120) }
        for s in out.sightings {
            #expect(s.firstSeen <= s.lastSeen)
            #expect(s.firstSeen >= heard[0] && s.lastSeen <= heard[heard.count - 1])
            #expect(s.zone != .unknown)
            #expect((-127...20).contains(s.rssi))
        }
        #expect(out.sightings.last?.lastSeen == heard.last)
        #expect(Set(out.sightings.map(\.id)).count == out.sightings.count)
    }

    @Test func aRecoveredBikeGetsNoMoreReports() async throws {
        let ads = try await Self.advertisements()
        let heard = ads.filter { $0.beacon == Self.missing }.map(\.time)
        let recoveredAt = heard[heard.count / 2]
        var core = SentinelCore(registry: MissingRegistry(version: 1, bikes: [TestValues.bike(Self.missing)]),
                                sighting: .init(presentInterval: 60))
        let out = Self.replay(&core, ads) { time, core in
            if time >= recoveredAt, core.registry.version == 1 { core.updateRegistry(MissingRegistry(version: 2), now: time) }
        }
        #expect(out.sightings.first?.event == .arrived)
        #expect(out.sightings.allSatisfy { $0.time <= recoveredAt })
        #expect(!out.sightings.contains { $0.event == .departed })
    }

    @Test func anOwnBikeLeavingRaisesOneAlarmAtTheRealExit() async throws {
        let ads = try await Self.advertisements()
        let bike = OwnBike(name: "commuter", beacon: Self.own, zone: nil)
        var core = SentinelCore(ownBikes: [bike])
        let out = Self.replay(&core, ads)
        #expect(out.sightings.isEmpty)
        // This tag enters on two frames 0.1 s apart, then is silent for 24 s and later heard in
        // bursts: no alarm until it is gone for good after the capture ends.
        #expect(out.alarms.count == 1)
        let alarm = try #require(out.alarms.last)
        #expect(alarm.bike == "commuter" && alarm.event == "left" && alarm.major == 20597 && alarm.minor == 62207)
        let lastHeard = try #require(ads.last { $0.beacon == Self.own }?.time)
        #expect(alarm.lastSeen == RFC3339.format(lastHeard))
    }

    @Test func strangersCostNoState() async throws {
        let ads = try await Self.advertisements()
        var core = SentinelCore(registry: MissingRegistry(version: 1, bikes: [TestValues.bike(TestValues.blueCharm)]))
        let out = Self.replay(&core, ads)
        #expect(out == SentinelCore.Output())
        #expect(core.trackedBeaconCount == 0)
    }
}
