import Foundation
import Proximity

/// One beacon's zone, reading by reading: the interface the proximity bench scores.
public protocol ZoneEstimating {
    /// The zone after taking in one reading (time in seconds, RSSI in dBm).
    mutating func zone(time: Double, rssi: Double) -> Zone
}

/// The methods the proximity bench compares, each built fresh for one stream from the receiver's
/// measured power (dBm at 1 m).
public enum ProximityMethod: String, CaseIterable, Sendable {
    case ours
    case v1 = "v1 (c04be83)"
    case rawLogDistance = "raw log-distance n=2"
    case homeAssistant = "Home Assistant"
    case altBeacon = "AltBeacon"
    case roomAssistant = "room-assistant"
    case espresense = "ESPresense"

    public func makeEstimator(measuredPower: Double) -> any ZoneEstimating {
        switch self {
        case .ours: OurEstimator(measuredPower: measuredPower)
        case .v1: ProximityV1(measuredPower: measuredPower)
        case .rawLogDistance: RawLogDistanceAnchor(measuredPower: measuredPower)
        case .homeAssistant: HomeAssistantAnchor(measuredPower: measuredPower)
        case .altBeacon: AltBeaconAnchor(measuredPower: measuredPower)
        case .roomAssistant: RoomAssistantAnchor(measuredPower: measuredPower)
        case .espresense: ESPresenseAnchor(measuredPower: measuredPower)
        }
    }
}

extension ProximityMethod {
    /// The established methods ours is measured against; not ours, nor our own earlier version.
    public static let anchors: [ProximityMethod] = allCases.filter { $0 != .ours && $0 != .v1 }
}

/// `ProximityEstimator`, with its default configuration unless the bench is choosing one.
struct OurEstimator: ZoneEstimating {
    let measuredPower: Double
    var estimator: ProximityEstimator

    init(measuredPower: Double, configuration: ProximityConfiguration = .init()) {
        self.measuredPower = measuredPower
        estimator = ProximityEstimator(configuration: configuration)
    }

    mutating func zone(time: Double, rssi: Double) -> Zone {
        estimator.update(time: time, rssi: rssi, measuredPower: measuredPower).zone
    }
}

// The anchors below reproduce design §5: each tool's filter and distance curve, and a zone taken
// straight from the distance (none of them has zone hysteresis).

/// Every reading through the log-distance model with n = 2; no filter.
struct RawLogDistanceAnchor: ZoneEstimating {
    let measuredPower: Double

    mutating func zone(time: Double, rssi: Double) -> Zone {
        Zone(distance: ProximityEstimator.distance(rssi: rssi, measuredPower: measuredPower, pathLossExponent: 2))
    }
}

/// The curve Home Assistant's ibeacon integration and room-assistant share (from the Android
/// Beacon Library's Nexus 4 fit), with ratio = rssi / measured power.
func nexusCurveDistance(rssi: Double, measuredPower: Double) -> Double {
    0.89976 * pow(rssi / measuredPower, 7.7095) + 0.111
}

/// Home Assistant ibeacon: no filter, Nexus curve.
struct HomeAssistantAnchor: ZoneEstimating {
    let measuredPower: Double

    mutating func zone(time: Double, rssi: Double) -> Zone {
        Zone(distance: nexusCurveDistance(rssi: rssi, measuredPower: measuredPower))
    }
}

/// AltBeacon's RunningAverageRssiFilter (20 s, top and bottom 10 % dropped) and its default curve.
///
/// AltBeacon sorts the window on every reading; the window here is kept sorted as readings come
/// and go (the same multiset, so the same trimmed mean), which makes a whole-dataset run of this
/// anchor linear in the window instead of n log n per reading.
struct AltBeaconAnchor: ZoneEstimating {
    let measuredPower: Double
    /// Readings in arrival order; those before `oldest` have left the window.
    private var arrivals: [(time: Double, rssi: Double)] = []
    private var oldest = 0
    private var sorted: [Double] = []

    init(measuredPower: Double) { self.measuredPower = measuredPower }

    mutating func zone(time: Double, rssi: Double) -> Zone {
        arrivals.append((time, rssi))
        sorted.insert(rssi, at: Self.firstIndex(notBelow: rssi, in: sorted))
        while arrivals[oldest].time < time - 20 {
            sorted.remove(at: Self.firstIndex(notBelow: arrivals[oldest].rssi, in: sorted))
            oldest += 1
        }
        if oldest > 1_024, oldest * 2 > arrivals.count {
            arrivals.removeFirst(oldest)
            oldest = 0
        }
        let cut = sorted.count / 10
        let kept = sorted[cut..<(sorted.count - cut)]
        let average = kept.reduce(0, +) / Double(kept.count)
        let ratio = average / measuredPower
        let distance = ratio < 1 ? pow(ratio, 10) : 0.42093 * pow(ratio, 6.9476) + 0.54992
        return Zone(distance: distance)
    }

    private static func firstIndex(notBelow value: Double, in sorted: [Double]) -> Int {
        var low = 0, high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

/// room-assistant: a scalar Kalman filter on RSSI (kalmanjs; process noise 0.008, measurement
/// noise 4, first reading taken as the state with the measurement's variance), Nexus curve.
struct RoomAssistantAnchor: ZoneEstimating {
    let measuredPower: Double
    var state: Double?
    var covariance = 0.0

    init(measuredPower: Double) { self.measuredPower = measuredPower }

    mutating func zone(time: Double, rssi: Double) -> Zone {
        let process = 0.008, measurement = 4.0
        if let state {
            let predicted = covariance + process
            let gain = predicted / (predicted + measurement)
            self.state = state + gain * (rssi - state)
            covariance = predicted - gain * predicted
        } else {
            state = rssi
            covariance = measurement
        }
        return Zone(distance: nexusCurveDistance(rssi: state ?? rssi, measuredPower: measuredPower))
    }
}

/// ESPresense: mean of the last 15 s inside the Tukey fences, log-distance with n = 2.7.
struct ESPresenseAnchor: ZoneEstimating {
    let measuredPower: Double
    var readings: [(time: Double, rssi: Double)] = []

    init(measuredPower: Double) { self.measuredPower = measuredPower }

    mutating func zone(time: Double, rssi: Double) -> Zone {
        readings.append((time, rssi))
        readings.removeAll { $0.time < time - 15 }
        let sorted = readings.map(\.rssi).sorted()
        let q1 = quantile(sorted, 0.25), q3 = quantile(sorted, 0.75)
        let low = q1 - 1.5 * (q3 - q1), high = q3 + 1.5 * (q3 - q1)
        let inside = sorted.filter { $0 >= low && $0 <= high }
        let mean = inside.reduce(0, +) / Double(inside.count)
        return Zone(distance: ProximityEstimator.distance(rssi: mean, measuredPower: measuredPower, pathLossExponent: 2.7))
    }
}

/// Linear-interpolation quantile of sorted, non-empty values (numpy's default).
func quantile(_ sorted: [Double], _ q: Double) -> Double {
    let position = q * Double(sorted.count - 1)
    let lower = Int(position.rounded(.down))
    let upper = min(lower + 1, sorted.count - 1)
    return sorted[lower] + (position - Double(lower)) * (sorted[upper] - sorted[lower])
}
