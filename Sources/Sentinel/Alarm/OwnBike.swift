import Beacon
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Proximity
import Regions

/// One of the owner's own bikes and where it belongs (e.g. zone `near` of the home sentinel).
public struct OwnBike: Codable, Equatable, Sendable {
    public var name: String
    public var beacon: BeaconID
    /// The bike counts as home only while at least this close; nil: anywhere in range.
    public var zone: Zone?

    public init(name: String, beacon: BeaconID, zone: Zone?) {
        self.name = name
        self.beacon = beacon
        self.zone = zone
    }

    var region: Region { Region(name: name, beacon: beacon, requiredZone: zone) }
}

/// What the own-bike alarm reports, as JSON to the webhook and on the command's stdin.
public struct OwnBikeAlarm: Codable, Equatable, Sendable {
    public var event: String
    public var bike: String
    public var uuid: String
    public var major: UInt16
    public var minor: UInt16
    /// The zone the bike had to stay in, or nil for "in range".
    public var zone: Zone?
    /// When the exit was decided, RFC 3339.
    public var time: String
    /// The last reading that still had the bike home: when it most likely left, RFC 3339.
    public var lastSeen: String

    public init(bike: OwnBike, time: Double, lastSeen: Double) {
        event = "left"
        self.bike = bike.name
        uuid = bike.beacon.uuid.uuidString
        major = bike.beacon.major
        minor = bike.beacon.minor
        zone = bike.zone
        self.time = RFC3339.format(time)
        self.lastSeen = RFC3339.format(lastSeen)
    }
}
