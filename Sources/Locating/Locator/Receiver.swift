/// A point on the ground in a local frame, metres (x east, y north).
public struct PlanePoint: Sendable, Equatable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    public func distance(to other: PlanePoint) -> Double {
        ((x - other.x) * (x - other.x) + (y - other.y) * (y - other.y)).squareRoot()
    }
}

/// How a receiver's RSSI maps to distance: measured on site at one distance, at two or more, or not at all.
public enum ReceiverCalibration: Sendable, Equatable {
    /// Nothing measured: the default model, and a wider spread about it.
    case none
    /// RSSI at 1 m measured; the default exponent holds.
    case onePoint(rssiAt1m: Double)
    /// RSSI at 1 m and the path-loss exponent both measured.
    case twoPoint(rssiAt1m: Double, exponent: Double)

    /// Exponents a survey can measure: 2 in free space, about 4 indoors, and philotuxo's receivers
    /// fitted on a track reach 0.48 and 6.1. Near 0 a distance is 10^(dB/tiny): infinite. At 0.2,
    /// 127 dB is 10^63.5 m, whose square still fits a Double.
    public static let plausibleExponents: ClosedRange<Double> = 0.2...10

    /// The path-loss exponent measured on site; nil where a default stands in (and the site's is learnt).
    public var measuredExponent: Double? {
        if case let .twoPoint(_, exponent) = self { exponent } else { nil }
    }
}

/// One place that hears the tag: a fixed sentinel, or a roaming one at its GPS fix.
public struct Receiver: Sendable, Equatable {
    public var id: String
    /// Nil: the receiver does not know where it is (a roaming sentinel with no fix); it contributes nothing.
    public var position: PlanePoint?
    public var calibration: ReceiverCalibration
    /// How far `position` may be off, metres (a GPS fix's horizontal accuracy); nil for a surveyed place.
    public var positionAccuracy: Double?

    /// A site's reach, metres: a place or an accuracy beyond it is no site's (a typo, a unit in
    /// millimetres), and its square would overflow the fit.
    public static let farthest = 1_000_000.0

    public init(id: String, position: PlanePoint?, calibration: ReceiverCalibration = .none, positionAccuracy: Double? = nil) {
        self.id = id
        self.position = position
        self.calibration = calibration
        self.positionAccuracy = positionAccuracy
    }
}

/// One RSSI reading of the tag by one receiver.
public struct Reading: Sendable, Equatable {
    /// Seconds, any epoch, the same for every receiver.
    public var time: Double
    public var receiver: String
    /// dBm.
    public var rssi: Double

    public init(time: Double, receiver: String, rssi: Double) {
        self.time = time
        self.receiver = receiver
        self.rssi = rssi
    }
}
