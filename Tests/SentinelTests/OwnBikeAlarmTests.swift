import Beacon
import Foundation
import Proximity
import Testing
import TestSupport
@testable import Sentinel

/// The "someone is wheeling my bike away" alarm through the whole pure core: it must fire on a
/// real departure, fast, and never because packets went missing.
@Suite struct OwnBikeAlarmTests {
    let bike = OwnBike(name: "commuter", beacon: SentinelCoreTests.own, zone: .near)
    let t0 = 1_763_762_000.0

    /// A tag on a parked bike 2 m away by the path-loss model (measured power -59 dBm: -64 dBm
    /// at n = 1.5), advertising at 1 Hz, RSSI noise ±4 dB, each packet lost with probability
    /// `loss` (seeded, so the test is repeatable).
    func parked(seconds: Int, loss: Double, seed: UInt64) -> [Advertisement] {
        var state = seed
        func next() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        let level = Int(ProximityConfiguration().model(measuredPower: -59).rssi(at: 2).rounded())
        return (0..<seconds).compactMap { s in
            let lost = next() < loss
            let rssi = level + Int((next() * 9).rounded(.down)) - 4
            return lost ? nil : Advertisement(beacon: bike.beacon, rssi: rssi, measuredPower: -59, address: nil, time: t0 + Double(s))
        }
    }

    func run(_ ads: [Advertisement], until end: Double) -> [OwnBikeAlarm] {
        var core = SentinelCore(ownBikes: [bike])
        var alarms: [OwnBikeAlarm] = []
        var next = t0
        for ad in ads {
            while next <= ad.time {
                alarms += core.tick(at: next, makeID: { UUID() }).alarms
                next += 1
            }
            alarms += core.observe(ad, makeID: { UUID() }).alarms
        }
        while next <= end {
            alarms += core.tick(at: next, makeID: { UUID() }).alarms
            next += 1
        }
        return alarms
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func neverFiresOnAnHourOfThirtyPercentPacketLoss(seed: UInt64) {
        let ads = parked(seconds: 3600, loss: 0.3, seed: seed)
        #expect(run(ads, until: t0 + 3600).isEmpty)
    }

    @Test func firesOnceWithinHalfAMinuteWhenTheBikeLeaves() throws {
        let ads = parked(seconds: 1800, loss: 0.3, seed: 7)
        let lastHeard = try #require(ads.last?.time)
        let alarms = run(ads, until: t0 + 3600)
        #expect(alarms.count == 1)
        let alarm = try #require(alarms.first)
        let decided = try #require(RFC3339.parse(alarm.time))
        #expect(decided - lastHeard <= 30)
        #expect(alarm.lastSeen == RFC3339.format(lastHeard))
        #expect(alarm.zone == .near)
    }
}

@Suite struct DeployConfigurationTests {
    @Test func theExampleConfigParsesAndValidates() throws {
        let path = Paths.repository.appendingPathComponent("deploy/sentinel.example.yaml").path
        let c = try SentinelConfiguration.load(path: path, environment: [:])
        try c.validate()
        #expect(c.ownBikes.first?.zone == .near)
        #expect(c.alarmCommand == ["/usr/local/bin/notify-bike-alarm"])
    }
}
