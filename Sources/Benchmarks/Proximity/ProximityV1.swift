import Foundation
import Proximity

/// The first estimator (c04be83), kept as a bench row so a regression against it shows: median
/// and MAD of the last 20 s, log-distance with n = 2, and a zone that changes only once the
/// level has stayed 2 standard errors of the median past a boundary for 10 s. Two-point
/// calibration replaces its n.
struct ProximityV1: ZoneEstimating {
    let measuredPower: Double
    let exponent: Double
    private var readings: [(time: Double, rssi: Double)] = []
    private var zone = Zone.unknown
    private var candidate: Zone?
    private var candidateSince = 0.0

    init(measuredPower: Double, exponent: Double = 2) {
        self.measuredPower = measuredPower
        self.exponent = exponent
    }

    mutating func zone(time: Double, rssi: Double) -> Zone {
        readings.append((time, rssi))
        readings.removeAll { $0.time < time - 20 }
        if readings.count > 256 { readings.removeFirst(readings.count - 256) }
        let sorted = readings.map(\.rssi).sorted()
        let median = Self.median(sorted)
        let spread = sorted.count >= 3 ? max(1, 1.4826 * Self.median(sorted.map { abs($0 - median) }.sorted())) : 6
        let margin = 2 * 1.2533 * spread / Double(sorted.count).squareRoot()
        let immediateAbove = ProximityEstimator.rssi(at: Zone.immediateLimit, measuredPower: measuredPower, pathLossExponent: exponent)
        let farBelow = ProximityEstimator.rssi(at: Zone.nearLimit, measuredPower: measuredPower, pathLossExponent: exponent)
        guard zone != .unknown else {
            zone = Self.zone(median, immediateAbove: immediateAbove, farBelow: farBelow)
            return zone
        }
        let proposed = Self.zone(median, immediateAbove: immediateAbove + (zone == .immediate ? -margin : margin),
                                 farBelow: farBelow - (zone == .far ? -margin : margin))
        if proposed == zone {
            candidate = nil
        } else {
            if candidate != proposed {
                candidate = proposed
                candidateSince = time
            }
            if time - candidateSince >= 10 {
                zone = proposed
                candidate = nil
            }
        }
        return zone
    }

    private static func zone(_ level: Double, immediateAbove: Double, farBelow: Double) -> Zone {
        level > immediateAbove ? .immediate : level < farBelow ? .far : .near
    }

    private static func median(_ sorted: [Double]) -> Double {
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
