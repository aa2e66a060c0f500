import Foundation
import GPSD
import Testing
@testable import Sentinel

/// `bikebeacon status` on a roaming sentinel: the operator at the Pi sees the fix's mode, age and
/// accuracy; the status (a file and metrics others may read) never holds the position itself.
@Suite struct FixStatusTests {
    @Test func statusShowsModeAgeAndAccuracyButNoPosition() async throws {
        let location = RoamingLocation(maxFixAge: 10)
        #expect(await location.status(at: 0, connected: false).report
            == "location: gpsd not connected, mode unknown, no fix yet, sightings go without a position")

        await location.take(FixKeeperTests.walk, at: 100)
        let status = await location.status(at: 102, connected: true)
        #expect(status.report == "location: gpsd connected, mode 3d, last fix 2 s ago, ±13 m, moving")
        let json = try #require(String(data: JSONEncoder().encode(status), encoding: .utf8))
        #expect(!json.contains("-27.2") && !json.contains("153.0") && !json.contains("latitude"))

        #expect(await location.status(at: 111, connected: true).report
            == "location: gpsd connected, mode 3d, last fix 11 s ago, ±13 m, sightings go without a position")
    }
}
