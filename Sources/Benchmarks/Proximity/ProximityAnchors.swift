import Foundation
import Proximity

/// One beacon's zone, reading by reading: the interface the proximity bench scores.
public protocol ZoneEstimating {
    /// The zone after taking in one reading (time in seconds, RSSI in dBm).
    mutating func zone(time: Double, rssi: Double) -> Zone
}

/// The methods the proximity bench compares, each built fresh for one stream from the receiver's
/// measured power (dBm at 1 m) and, after two-point calibration, its path-loss exponent.
public enum ProximityMethod: String, CaseIterable, Sendable {
    case ours
    case v1 = "v1 (c04be83)"
    case rawLogDistance = "raw log-distance n=2"
    case homeAssistant = "Home Assistant"
    case altBeacon = "AltBeacon"
    case roomAssistant = "room-assistant"
    case espresense = "ESPresense"

    /// `exponent` replaces the method's own path-loss exponent where it has one (ours, v1, raw
    /// log-distance, ESPresense, whose users set absorption per room); the Nexus curves of Home
    /// Assistant, room-assistant and AltBeacon have none and take the measured power alone.
    public func makeEstimator(measuredPower: Double, exponent: Double? = nil) -> any ZoneEstimating {
        switch self {
        case .ours:
            var configuration = ProximityConfiguration()
            if let exponent { configuration.pathLossExponent = exponent }
            return OurEstimator(measuredPower: measuredPower, configuration: configuration)
        case .v1: return ProximityV1(measuredPower: measuredPower, exponent: exponent ?? 2)
        case .rawLogDistance: return RawLogDistanceAnchor(measuredPower: measuredPower, exponent: exponent ?? 2)
        case .homeAssistant: return HomeAssistantAnchor(measuredPower: measuredPower)
        case .altBeacon: return AltBeaconAnchor(measuredPower: measuredPower)
        case .roomAssistant: return RoomAssistantAnchor(measuredPower: measuredPower)
        case .espresense: return ESPresenseAnchor(measuredPower: measuredPower, exponent: exponent ?? 2.7)
        }
    }

    /// Whether two-point calibration changes this method (it has a path-loss exponent to set).
    public var takesExponent: Bool {
        [.ours, .v1, .rawLogDistance, .espresense].contains(self)
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

/// Every reading through the log-distance model with n = 2 (or the calibrated n); no filter.
struct RawLogDistanceAnchor: ZoneEstimating {
    let measuredPower: Double
    var exponent = 2.0

    mutating func zone(time: Double, rssi: Double) -> Zone {
        Zone(distance: ProximityEstimator.distance(rssi: rssi, measuredPower: measuredPower, pathLossExponent: exponent))
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

/// ESPresense: mean of the last 15 s inside the Tukey fences, log-distance with n = 2.7 (its
/// default absorption; a calibrated n where the user set one).
struct ESPresenseAnchor: ZoneEstimating {
    let measuredPower: Double
    let exponent: Double
    var readings: [(time: Double, rssi: Double)] = []

    init(measuredPower: Double, exponent: Double = 2.7) {
        self.measuredPower = measuredPower
        self.exponent = exponent
    }

    mutating func zone(time: Double, rssi: Double) -> Zone {
        readings.append((time, rssi))
        readings.removeAll { $0.time < time - 15 }
        let sorted = readings.map(\.rssi).sorted()
        let q1 = RSSISummary.quantile(sorted, 0.25), q3 = RSSISummary.quantile(sorted, 0.75)
        let low = q1 - 1.5 * (q3 - q1), high = q3 + 1.5 * (q3 - q1)
        let inside = sorted.filter { $0 >= low && $0 <= high }
        let mean = inside.reduce(0, +) / Double(inside.count)
        return Zone(distance: ProximityEstimator.distance(rssi: mean, measuredPower: measuredPower, pathLossExponent: exponent))
    }
}
