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
}

/// One place that hears the tag: a fixed sentinel, or a roaming one at its GPS fix.
public struct Receiver: Sendable, Equatable {
    public var id: String
    /// Nil: the receiver does not know where it is (a roaming sentinel with no fix); it contributes nothing.
    public var position: PlanePoint?
    public var calibration: ReceiverCalibration
    /// How far `position` may be off, metres (a GPS fix's horizontal accuracy); nil for a surveyed place.
    public var positionAccuracy: Double?

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
