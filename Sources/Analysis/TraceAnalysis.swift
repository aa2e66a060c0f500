import Beacon
import Proximity
import Regions
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One analysed reading: what the estimator and the region monitor made of it.
public struct AnalyzedReading: Equatable, Sendable {
    public var reading: TraceReading
    public var estimate: ProximityEstimate
    /// The region monitor's state right after this reading.
    public var present: Bool
}

/// Runs one beacon's trace through the estimator and a region monitor under default
/// settings: what `bikebeacon analyze` prints.
public enum TraceAnalysis {
    /// The single beacon a trace stands for; any identity would do.
    static let beacon = BeaconID(uuid: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)), major: 0, minor: 0)

    public static func run(_ readings: [TraceReading], measuredPower: Double, proximity: ProximityConfiguration = .init()) -> [AnalyzedReading] {
        var estimator = ProximityEstimator(configuration: proximity)
        let region = Region(name: "trace", beacon: beacon)
        var monitor = RegionMonitor(regions: [region])
        return readings.map { reading in
            let estimate = estimator.update(time: reading.time, rssi: reading.rssi, measuredPower: measuredPower)
            _ = monitor.tick(at: reading.time)
            _ = monitor.observe(beacon, estimate)
            return AnalyzedReading(reading: reading, estimate: estimate, present: monitor.isInside(region, beacon: beacon))
        }
    }

    public static let csvHeader = "time,rssi,filtered_rssi,distance_m,zone,present"

    /// One output line; unknown values are empty fields.
    public static func csvLine(_ row: AnalyzedReading) -> String {
        [
            String(row.reading.timeText),
            String(row.reading.rssiText),
            row.estimate.filteredRSSI.map { DecimalText.fixed($0, 2) } ?? "",
            row.estimate.distance.map { DecimalText.fixed($0, 3) } ?? "",
            row.estimate.zone.rawValue,
            row.present ? "1" : "0",
        ].joined(separator: ",")
    }
}
