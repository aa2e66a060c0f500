import Foundation
import GPSD
import Testing
@testable import Sentinel

/// `bikebeacon status` on a roaming sentinel: the operator at the Pi sees the fix's mode, age and
/// accuracy; the status (a file and metrics others may read) never holds the position itself.
@Suite struct FixStatusTests {
    @Test func statusShowsModeAgeAndAccuracyButNoPosition() async throws {
        let clocks = LiveClockTests.Clocks(wall: LiveClockTests.trueStart)
        let location = RoamingLocation(maxFixAge: 10, clock: LiveClock(wall: { clocks.wall }, elapsed: { clocks.elapsed }))
        #expect(await location.status(connected: false).report
            == "location: gpsd not connected, mode unknown, no fix yet, sightings go without a position")

        await location.take(FixKeeperTests.walk)
        clocks.pass(2)
        let status = await location.status(connected: true)
        #expect(status.report == "location: gpsd connected, mode 3d, last fix 2 s ago, ±13 m, moving")
        let json = try #require(String(data: JSONEncoder().encode(status), encoding: .utf8))
        #expect(!json.contains("-27.2") && !json.contains("153.0") && !json.contains("latitude"))

        clocks.pass(9)
        #expect(await location.status(connected: true).report
            == "location: gpsd connected, mode 3d, last fix 11 s ago, ±13 m, sightings go without a position")
    }

    /// NTP stepping the wall clock (hours, either way) must neither age a fresh fix nor revive a
    /// stale one: the fix is timed on the sentinel's monotonic clock.
    @Test func aWallClockStepDoesNotAgeAFix() async {
        let clocks = LiveClockTests.Clocks(wall: LiveClockTests.trueStart - 5 * 3600)
        let location = RoamingLocation(maxFixAge: 10, clock: LiveClock(wall: { clocks.wall }, elapsed: { clocks.elapsed }))
        await location.take(FixKeeperTests.walk)
        clocks.pass(3)
        clocks.wall += 5 * 3600
        #expect(await location.place() != .noFix)
        #expect(await location.status(connected: true).ageSeconds == 3)
        clocks.wall -= 10 * 3600
        #expect(await location.place() != .noFix)
        // Time that really passes still ages it.
        clocks.pass(8)
        #expect(await location.place() == .noFix)
    }
}
