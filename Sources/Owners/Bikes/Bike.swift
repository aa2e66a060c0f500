import Beacon
import Proximity

/// A bike an owner can look for: the name they call it, the tag stuck on it and, once measured
/// with `bikebeacon calibrate --save bike NAME`, how that tag reads at this owner's receiver.
public struct Bike: Equatable, Sendable, Codable {
    public var name: String
    public var beacon: BeaconID
    public var calibration: TagCalibration?

    public init(name: String, beacon: BeaconID, calibration: TagCalibration? = nil) {
        self.name = name
        self.beacon = beacon
        self.calibration = calibration
    }
}
