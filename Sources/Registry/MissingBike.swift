import Beacon

/// The public description of a missing bike, what a sentinel operator may see.
public struct BikeDescription: Hashable, Sendable, Codable {
    public var make: String
    public var model: String
    public var colour: String

    public init(make: String, model: String, colour: String) {
        self.make = make
        self.model = model
        self.colour = colour
    }
}

/// One entry of the missing list.
public struct MissingBike: Hashable, Sendable, Codable {
    public var beacon: BeaconID
    public var description: BikeDescription

    public init(beacon: BeaconID, description: BikeDescription) {
        self.beacon = beacon
        self.description = description
    }
}

/// What changed on the server between two list versions.
public struct MissingListDelta: Hashable, Sendable, Codable {
    /// The version the delta starts from; it applies only to a registry at exactly this version.
    public var since: Int64
    public var version: Int64
    public var added: [MissingBike]
    public var removed: [BeaconID]

    public init(since: Int64, version: Int64, added: [MissingBike], removed: [BeaconID]) {
        self.since = since
        self.version = version
        self.added = added
        self.removed = removed
    }
}
