import Beacon
import Captures
import Foundation
import Owners
import Proximity
import Regions
import Scanning
import Testing
import TestSupport
import Tracking

/// The owner's range view and a sentinel read a bike the same way: one path for a reading.
struct RangeTrackerTests {
    static let beacon = BeaconID("494E5445-4C4C-495F-524F-434B535F4857:20596:25984")!

    /// The tag's advertisements in a real Raspberry Pi capture (Tests/Fixtures/captures/SOURCE.txt).
    static func advertisements() throws -> [Advertisement] {
        var reader = try CaptureReader(FileBytes(path: Paths.fixture("captures/govee-h5100.btsnoop").path))
        var decoder = AdvertisementDecoder()
        var found: [Advertisement] = []
        while let packet = try reader.next() {
            decoder.decode(h4: packet.h4, time: packet.time) { if $0.beacon == beacon { found.append($0) } }
        }
        return found
    }

    /// A bike calibrated with `bikebeacon calibrate --save bike` is read on its measured 1 m level
    /// and exponent, as a sentinel configured with the same would: the distance moves accordingly.
    @Test func aCalibratedBikeIsReadOnItsOwnLevelAndExponent() throws {
        let readings = try Self.advertisements()
        let calibration = TagCalibration(measuredPower: -50, pathLossExponent: 3)
        var calibrated = RangeTracker(beacon: Self.beacon, calibration: calibration)
        var plain = RangeTracker(beacon: Self.beacon)
        var sentinel = BeaconTracker(ownRegions: [Region(name: "garage", beacon: Self.beacon)],
                                     configuration: TrackerConfiguration(proximity: calibration.applied(to: .init())))
        for reading in readings {
            calibrated.record(reading)
            plain.record(reading)
            var recalibrated = reading
            recalibrated.measuredPower = -50
            _ = sentinel.observe(recalibrated)
        }
        let time = try #require(readings.last).time
        let seen = calibrated.estimate(at: time)
        #expect(seen == sentinel.estimate(of: Self.beacon, at: time))
        #expect(calibrated.history.samples.last?.measuredPower == -50)
        #expect(seen.distance != plain.estimate(at: time).distance, "the calibration changes the distance")
    }

    @Test func whatTheOwnerSeesIsWhatASentinelDecides() throws {
        let readings = try Self.advertisements()
        try #require(readings.count >= 17, "the fixture holds the tag's readings")
        var range = RangeTracker(beacon: Self.beacon)
        var sentinel = BeaconTracker(ownRegions: [Region(name: "garage", beacon: Self.beacon)])
        for reading in readings {
            range.record(reading)
            _ = sentinel.observe(reading)
            let seen = range.estimate(at: reading.time)
            let decided = try #require(sentinel.estimate(of: Self.beacon, at: reading.time))
            #expect(seen == decided, "at \(reading.time)")
            #expect(range.history.samples.last?.filtered == decided.filteredRSSI)
        }
        let later = try #require(readings.last).time + range.staleAfter + 1
        #expect(range.estimate(at: later) == sentinel.estimate(of: Self.beacon, at: later), "and both let it go stale together")
    }

    @Test func beforeTheFirstReadingTheBikeIsUnknown() {
        let range = RangeTracker(beacon: Self.beacon)
        let estimate = range.estimate(at: 100)
        #expect(estimate.zone == .unknown && estimate.distance == nil)
    }
}
