#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Beacon
import Proximity

/// A beacon region as iOS defines it: a UUID, optionally narrowed by major and minor,
/// optionally requiring the beacon to be in a zone (e.g. `near` for a bike in its garage).
public struct Region: Hashable, Sendable, Codable {
    public var name: String
    /// Nil matches every beacon: a sentinel watching the missing list filters by the registry
    /// before the monitor, since a region per missing bike would not scale.
    public var uuid: UUID?
    public var major: UInt16?
    public var minor: UInt16?
    /// The beacon counts as inside only while at least this close.
    public var requiredZone: Zone?
    /// The beacon counts as inside only while estimated at most this far, metres: for sites
    /// whose geometry does not fit the zone limits (e.g. a 2 m doorway). Combines with
    /// `requiredZone` when both are set.
    public var maximumDistance: Double?

    public init(name: String, uuid: UUID?, major: UInt16? = nil, minor: UInt16? = nil, requiredZone: Zone? = nil, maximumDistance: Double? = nil) {
        self.name = name
        self.uuid = uuid
        self.major = major
        self.minor = minor
        self.requiredZone = requiredZone
        self.maximumDistance = maximumDistance
    }

    /// A region matching exactly one beacon.
    public init(name: String, beacon: BeaconID, requiredZone: Zone? = nil, maximumDistance: Double? = nil) {
        self.init(name: name, uuid: beacon.uuid, major: beacon.major, minor: beacon.minor, requiredZone: requiredZone, maximumDistance: maximumDistance)
    }

    /// A region every beacon belongs to.
    public static func anyBeacon(name: String, requiredZone: Zone? = nil) -> Region {
        Region(name: name, uuid: nil, requiredZone: requiredZone)
    }

    public func contains(_ beacon: BeaconID) -> Bool {
        (uuid.map { $0 == beacon.uuid } ?? true) && (major.map { $0 == beacon.major } ?? true) && (minor.map { $0 == beacon.minor } ?? true)
    }
}
