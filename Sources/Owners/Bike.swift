import Beacon

/// A bike an owner can look for: the name they call it and the tag stuck on it.
public struct Bike: Equatable, Sendable, Codable {
    public var name: String
    public var beacon: BeaconID

    public init(name: String, beacon: BeaconID) {
        self.name = name
        self.beacon = beacon
    }
}
