import Beacon
import Benchmarks
import Foundation
import Proximity
import Regions
import TestSupport
import Testing

/// The estimator and monitor on a real walk past real sensors (philotuxo track
/// zigzagging_without_rotation, 96 s): the beacon walks up to sensor40 and later sensor10,
/// passes within 1.3–1.6 m, and walks away; it never comes within 5.8 m of sensor12.
/// Measured power -59 dBm, default settings, as the benchmark runs them.
struct RealTrackTests {
    static func stream(_ sensor: String) throws -> [PhilotuxoTracks.Sample] {
        let text = try String(contentsOf: Paths.fixture("philotuxo/zigzagging_without_rotation-3-sensors.csv"), encoding: .utf8)
        return try #require(try PhilotuxoTracks.parse(text).first { $0.sensor == sensor }).samples
    }

    @Test func walkingPastSensor40EntersAndLeavesTheNearRegionOnce() throws {
        let samples = try Self.stream("sensor40")
        let truth = RegionBench.groundTruth(samples, radius: 3)
        let predicted = RegionBench.predict(samples, method: .estimatorMonitor, radius: 3, measuredPower: -59)
        try #require(truth.map(\.entered) == [true, false])
        #expect(predicted.map(\.entered) == [true, false], "one visit, no flapping: \(predicted)")
        let enter = try #require(predicted.first).time - truth[0].time
        let exit = try #require(predicted.last).time - truth[1].time
        // The estimator's 20 s median window lags a walking beacon by about half its length.
        #expect(enter > -10 && enter < 15, "entered \(enter) s from the truth")
        #expect(exit > -5 && exit < 30, "left \(exit) s from the truth")
    }

    @Test func lingeringNearSensor10IsInsideThenLeaves() throws {
        let samples = try Self.stream("sensor10")
        let truth = RegionBench.groundTruth(samples, radius: 3)
        let predicted = RegionBench.predict(samples, method: .estimatorMonitor, radius: 3, measuredPower: -59)
        try #require(truth.map(\.entered) == [true, false])
        let middle = (truth[0].time + truth[1].time) / 2
        let insideAtMiddle = predicted.last { $0.time <= middle }?.entered ?? false
        #expect(insideAtMiddle, "outside in the middle of the true visit: \(predicted)")
        #expect(predicted.filter(\.entered).count == 1, "flapped: \(predicted)")
        let exit = try #require(predicted.last { !$0.entered })
        #expect(exit.time > truth[1].time && exit.time < truth[1].time + 30)
    }

    @Test func aSensorNeverWithinSixMetresNeverSeesItNear() throws {
        let samples = try Self.stream("sensor12")
        #expect(samples.allSatisfy { $0.distance > 5.8 })
        #expect(RegionBench.predict(samples, method: .estimatorMonitor, radius: 3, measuredPower: -59).isEmpty)
    }

    /// Without a required zone the region is "in radio range": the beacon is heard the whole
    /// walk (up to 18 m away), so every sensor has it inside at once and never drops it.
    @Test(arguments: ["sensor10", "sensor12", "sensor40"])
    func plainRegionEntersAtOnceAndNeverExits(sensor: String) throws {
        let samples = try Self.stream(sensor)
        let beacon = try #require(BeaconID("E78F1356-24CE-0000-0000-000000000000:1:1"))
        let region = Region(name: "in range", beacon: beacon)
        var estimator = ProximityEstimator()
        var monitor = RegionMonitor(regions: [region])
        var events: [RegionEvent] = []
        for sample in samples {
            events += monitor.tick(at: sample.time)
            events += monitor.observe(beacon, estimator.update(time: sample.time, rssi: sample.rssi, measuredPower: -59))
        }
        let start = try #require(samples.first).time
        let changes = events.filter { if case .stillInside = $0 { false } else { true } }
        #expect(changes.count == 1, "\(changes)")
        let enter = try #require(changes.first)
        #expect(enter == .entered(region: region, beacon: beacon, time: enter.time))
        #expect(enter.time - start < 2)
    }
}
