import Beacon
#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A tag's level measured on site at a known distance.
public struct CalibrationPoint: Sendable, Equatable {
    /// Metres, positive.
    public var distance: Double
    /// Median RSSI at that distance, dBm.
    public var rssi: Double

    public init(distance: Double, rssi: Double) {
        self.distance = distance
        self.rssi = rssi
    }

    /// Reads `DISTANCE=RSSI` (metres, dBm), as `analyze --calibration 3=-71` takes it.
    public init(parsing text: String) throws(CalibrationError) {
        let parts = text.split(separator: "=", omittingEmptySubsequences: false)
        guard parts.count == 2, let distance = Double(parts[0]), let rssi = Double(parts[1]) else {
            throw .malformed(text)
        }
        try self.init(checking: distance, rssi: rssi)
    }

    /// A point after checking that it can be a real measurement.
    public init(checking distance: Double, rssi: Double) throws(CalibrationError) {
        guard distance.isFinite, distance > 0 else { throw .distance(distance) }
        guard ProximityEstimator.isPlausible(rssi: rssi) else { throw .rssi(rssi) }
        self.init(distance: distance, rssi: rssi)
    }
}

/// Why calibration points were refused; each says what to measure or type instead.
public enum CalibrationError: Error, Equatable, CustomStringConvertible {
    case malformed(String)
    case distance(Double)
    case rssi(Double)
    case flat(exponent: Double)

    public var description: String {
        switch self {
        case .malformed(let text):
            "calibration `\(text)` is not DISTANCE=RSSI (metres=dBm, e.g. 3=-71)"
        case .distance(let metres):
            "calibration distance \(metres) m must be a positive number of metres"
        case .rssi(let dBm):
            "calibration RSSI \(dBm) dBm is not a real signal strength (between -127 and 0 dBm)"
        case .flat(let exponent):
            "the calibration points do not weaken with distance (path-loss exponent \(DecimalText.fixed(exponent, 2))): "
                + "measure again with the tag in the open, the farther point at least twice as far as the nearer"
        }
    }
}

/// The log-distance model that site measurements imply: path loss differs per place, and one
/// or two points measured there fix it better than any constant chosen elsewhere.
public enum SiteCalibration {
    /// Fits RSSI = P − 10·n·log10(d) to `points` by least squares in log-distance.
    ///
    /// Points at a single distance fix only P (moved to 1 m along `exponent`) and keep `exponent`:
    /// one-point calibration. Points at two or more distances fit both P and n: two-point
    /// calibration. An exponent of zero or less (the farther point reads as strong or stronger)
    /// is refused: it maps every weaker reading to an endless distance.
    public static func fit(_ points: [CalibrationPoint], exponent: Double) throws(CalibrationError) -> (measuredPower: Double, exponent: Double) {
        let xs = points.map { log10($0.distance) }
        let count = Double(points.count)
        let meanX = xs.reduce(0, +) / count
        let meanRSSI = points.map(\.rssi).reduce(0, +) / count
        let spread: Double = xs.map { (x: Double) -> Double in (x - meanX) * (x - meanX) }.reduce(0, +)
        guard spread > 1e-9 else { return (meanRSSI + 10 * exponent * meanX, exponent) }
        let covariance: Double = zip(xs, points).map { (x: Double, point: CalibrationPoint) -> Double in (x - meanX) * (point.rssi - meanRSSI) }.reduce(0, +)
        let slope = covariance / spread
        let fitted = -slope / 10
        guard fitted > 0 else { throw .flat(exponent: fitted) }
        return (meanRSSI - slope * meanX, fitted)
    }
}

/// What `bikebeacon calibrate` measured for one tag at one receiver: its RSSI at 1 m and, when
/// it was measured at two distances or more, the path-loss exponent. Replaces the tag's advertised
/// measured power (and the default exponent) for that bike.
public struct TagCalibration: Sendable, Equatable, Codable {
    /// RSSI at 1 m, dBm.
    public var measuredPower: Double
    /// Nil: measured at one distance only; the default exponent holds.
    public var pathLossExponent: Double?

    public init(measuredPower: Double, pathLossExponent: Double?) {
        self.measuredPower = measuredPower
        self.pathLossExponent = pathLossExponent
    }

    /// `configuration` with this tag's exponent, when it has one.
    public func applied(to configuration: ProximityConfiguration) -> ProximityConfiguration {
        var calibrated = configuration
        if let pathLossExponent { calibrated.pathLossExponent = pathLossExponent }
        return calibrated
    }
}
