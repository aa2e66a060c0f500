import Beacon
import BikebeaconAPI
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Proximity

/// One report for `POST /v1/sightings`. Its `id` is chosen when the sighting is created and
/// never changes, so sending it again (after a lost answer, a crash, a restart) is harmless:
/// the server is idempotent on it.
public struct Sighting: Hashable, Sendable {
    public var id: UUID
    public var beacon: BeaconID
    public var event: SightingEvent
    /// When the event was decided, seconds since the Unix epoch.
    public var time: Double
    /// First reading of this visit.
    public var firstSeen: Double
    /// Latest reading of this visit (for `departed`: the best guess of when the bike left).
    public var lastSeen: Double
    /// Strongest RSSI since the previous report of this visit, dBm.
    public var rssi: Int
    /// Estimated distance at that reading, metres; nil when unknown.
    public var distance: Double?
    public var zone: Zone

    public init(id: UUID, beacon: BeaconID, event: SightingEvent, time: Double, firstSeen: Double, lastSeen: Double,
                rssi: Int, distance: Double?, zone: Zone) {
        self.id = id
        self.beacon = beacon
        self.event = event
        self.time = time
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
        self.rssi = rssi
        self.distance = distance
        self.zone = zone
    }
}

/// Stored in the outbox and sent to the server in its wire form, `SightingItem`.
extension Sighting: Codable {
    public init(from decoder: any Decoder) throws {
        let item = try SightingItem(from: decoder)
        func field<T>(_ value: T?, _ name: String) throws -> T {
            guard let value else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "'\(name)' is not valid"))
            }
            return value
        }
        id = try field(UUID(uuidString: item.id), "id")
        beacon = BeaconID(uuid: try field(UUID(uuidString: item.uuid), "uuid"),
                          major: try field(UInt16(exactly: item.major), "major"), minor: try field(UInt16(exactly: item.minor), "minor"))
        event = try field(SightingEvent(rawValue: item.event), "event")
        time = try field(RFC3339.parse(item.time), "time")
        firstSeen = try field(RFC3339.parse(item.firstSeen), "firstSeen")
        lastSeen = try field(RFC3339.parse(item.lastSeen), "lastSeen")
        rssi = item.rssi
        distance = item.distance
        zone = try field(Zone(rawValue: item.zone), "zone")
    }

    public func encode(to encoder: any Encoder) throws {
        try item.encode(to: encoder)
    }

    /// The same sighting with its times moved by `seconds`: from the core's timeline to the wall clock.
    public func shifted(by seconds: Double) -> Sighting {
        guard seconds != 0 else { return self }
        var copy = self
        copy.time += seconds
        copy.firstSeen += seconds
        copy.lastSeen += seconds
        return copy
    }

    /// The wire form: flat beacon fields, RFC 3339 times in UTC with milliseconds (what the server stores).
    public var item: SightingItem {
        SightingItem(id: id.uuidString.lowercased(), uuid: beacon.uuid.uuidString, major: Int(beacon.major), minor: Int(beacon.minor),
                     event: event.rawValue, time: RFC3339.format(time), firstSeen: RFC3339.format(firstSeen), lastSeen: RFC3339.format(lastSeen),
                     rssi: rssi, distance: distance, zone: zone.rawValue)
    }
}

/// RFC 3339 date-times as the API speaks them (`2026-11-21T22:13:44.123Z`), from and to the
/// sentinel's epoch seconds, through the API's one codec.
enum RFC3339 {
    /// Rounded to the millisecond, so format → parse → format is stable.
    static func format(_ epochSeconds: Double) -> String {
        Timestamp.format(milliseconds: Int64((epochSeconds * 1000).rounded()))
    }

    static func parse(_ text: String) -> Double? {
        Timestamp.parse(text).map { Double($0) / 1000 }
    }
}
