import Beacon
import Foundation
import Registry
import Testing
import TestSupport
@testable import Sentinel

/// A Pi without a real-time clock boots hours behind and NTP steps it forward; an operator may
/// step it back. Durations must not move with it; stamps must.
@Suite struct LiveClockTests {
    /// The wall clock and a monotonic clock the test moves by hand.
    final class Clocks: @unchecked Sendable {
        private let lock = NSLock()
        private var _wall: Double
        private var _elapsed = 0.0
        init(wall: Double) { _wall = wall }
        var wall: Double {
            get { lock.withLock { _wall } }
            set { lock.withLock { _wall = newValue } }
        }
        var elapsed: Double { lock.withLock { _elapsed } }
        /// Time passes: both clocks advance.
        func pass(_ seconds: Double) { lock.withLock { _wall += seconds; _elapsed += seconds } }
    }

    static let trueStart = 1_795_000_000.0
    static let missing = TestValues.blueCharm

    @Test func aStepOfTheWallClockMovesTheShiftNotCoreTime() {
        let clocks = Clocks(wall: Self.trueStart - 5 * 3600)
        let clock = LiveClock(wall: { clocks.wall }, elapsed: { clocks.elapsed })
        clocks.pass(30)
        #expect(clock.now == Self.trueStart - 5 * 3600 + 30)
        #expect(clock.shift == 0)
        clocks.wall = Self.trueStart + 30
        #expect(clock.now == Self.trueStart - 5 * 3600 + 30)
        #expect(clock.shift == 5 * 3600)
        clocks.wall -= 60
        clocks.pass(10)
        #expect(clock.now == Self.trueStart - 5 * 3600 + 40)
        #expect(clock.shift == 5 * 3600 - 60)
    }

    /// The sentinel's loop in small: a reading and a tick every second on the live clock, the
    /// wall clock stepped forward five hours after a minute and back one after two.
    @Test func aBikeHeardThroughClockStepsArrivesOnceNeverDepartsAndIsStampedOnTheWallClock() {
        let clocks = Clocks(wall: Self.trueStart - 5 * 3600)
        let clock = LiveClock(wall: { clocks.wall }, elapsed: { clocks.elapsed })
        var core = SentinelCore(registry: MissingRegistry(version: 1, bikes: [TestValues.bike(Self.missing)]),
                                sighting: .init(presentInterval: 15))
        var stamped: [(sighting: Sighting, wall: Double, second: Int)] = []
        for second in 0..<240 {
            if second == 60 { clocks.wall += 5 * 3600 }
            if second == 120 { clocks.wall -= 60 }
            core.stampShift = clock.shift
            let advertisement = Advertisement(beacon: Self.missing, rssi: -60, measuredPower: -59, address: nil, time: clock.now)
            for sighting in core.observe(advertisement, makeID: { UUID() }).sightings + core.tick(at: clock.now, makeID: { UUID() }).sightings {
                stamped.append((sighting, clocks.wall, second))
            }
            clocks.pass(1)
        }
        let events = stamped.map(\.sighting.event)
        #expect(events.filter { $0 == .arrived }.count == 1)
        #expect(!events.contains(.departed))
        #expect(events.filter { $0 == .present }.count >= 2)
        for (sighting, wall, _) in stamped {
            #expect(abs(sighting.time - wall) <= 1, "stamped with the wall clock of the moment it left the core")
            #expect(sighting.firstSeen <= sighting.time)
        }
        // A visit first heard at second 0, before the clock was set, is stamped on the clock as it is
        // when the report leaves: the true start, a minute less once the clock was stepped back.
        let afterSet = stamped.filter { $0.second >= 60 }
        #expect(!afterSet.isEmpty)
        for (sighting, _, second) in afterSet {
            #expect(abs(sighting.firstSeen - (Self.trueStart - (second >= 120 ? 60 : 0))) <= 1)
        }
    }
}
