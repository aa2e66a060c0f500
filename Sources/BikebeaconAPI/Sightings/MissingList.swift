#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Beacon
import Registry

/// One entry of the missing list on the wire: the beacon's fields flat, beside its description.
public struct MissingBeacon: Codable, Sendable, Equatable {
    public var uuid: UUID
    public var major: UInt16
    public var minor: UInt16
    public var description: BikeDescription

    public init(_ bike: MissingBike) {
        uuid = bike.beacon.uuid
        major = bike.beacon.major
        minor = bike.beacon.minor
        description = bike.description
    }

    public var bike: MissingBike {
        MissingBike(beacon: BeaconID(uuid: uuid, major: major, minor: minor), description: description)
    }
}

/// `GET /v1/missing` in full: replaces whatever list a sentinel holds.
public struct MissingList: Codable, Sendable, Equatable {
    public var version: Int64
    public var beacons: [MissingBeacon]

    public init(version: Int64, beacons: [MissingBeacon]) {
        self.version = version
        self.beacons = beacons
    }
}

/// `GET /v1/missing?since=N`: what changed after version `since`.
public struct MissingDelta: Codable, Sendable, Equatable {
    public var since: Int64
    public var version: Int64
    public var added: [MissingBeacon]
    public var removed: [BeaconID]

    public init(_ delta: MissingListDelta) {
        since = delta.since
        version = delta.version
        added = delta.added.map(MissingBeacon.init)
        removed = delta.removed
    }

    public var delta: MissingListDelta {
        MissingListDelta(since: since, version: version, added: added.map(\.bike), removed: removed)
    }
}
