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
    /// Where the bike was heard: the enrolled place, or a roaming sentinel's fix (or lack of one).
    public var place: SightingPlace

    public init(id: UUID, beacon: BeaconID, event: SightingEvent, time: Double, firstSeen: Double, lastSeen: Double,
                rssi: Int, distance: Double?, zone: Zone, place: SightingPlace = .enrolled) {
        self.id = id
        self.beacon = beacon
        self.event = event
        self.time = time
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
        self.rssi = rssi
        self.distance = distance
        self.zone = zone
        self.place = place
    }
}

/// Where a sighting happened, as the sentinel knows it.
public enum SightingPlace: Hashable, Sendable {
    /// Where the server enrolled the sentinel (a sentinel at a fixed place).
    case enrolled
    /// A roaming sentinel's own position.
    case fix(SightingFix)
    /// A roaming sentinel with no fix recent enough: the sighting still goes, without a position.
    case noFix
}

/// A roaming sentinel's position when it heard the bike.
public struct SightingFix: Hashable, Sendable {
    public var latitude: Double
    public var longitude: Double
    /// Horizontal accuracy, metres; nil when the receiver gave none.
    public var accuracy: Double?
    /// The fix's own time, seconds since the Unix epoch.
    public var time: Double

    public init(latitude: Double, longitude: Double, accuracy: Double?, time: Double) {
        self.latitude = latitude
        self.longitude = longitude
        self.accuracy = accuracy
        self.time = time
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
        switch item.fix {
        case nil: place = .enrolled
        case "none": place = .noFix
        case "gps":
            place = .fix(SightingFix(latitude: try field(item.latitude, "latitude"), longitude: try field(item.longitude, "longitude"),
                                     accuracy: item.accuracy, time: try field(item.fixTime.flatMap(RFC3339.parse), "fixTime")))
        default:
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "'fix' is not valid"))
        }
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
        var item = SightingItem(id: id.uuidString.lowercased(), uuid: beacon.uuid.uuidString, major: Int(beacon.major), minor: Int(beacon.minor),
                                event: event.rawValue, time: RFC3339.format(time), firstSeen: RFC3339.format(firstSeen), lastSeen: RFC3339.format(lastSeen),
                                rssi: rssi, distance: distance, zone: zone.rawValue)
        switch place {
        case .enrolled:
            break
        case .noFix:
            item.fix = "none"
        case let .fix(fix):
            item.fix = "gps"
            item.latitude = fix.latitude
            item.longitude = fix.longitude
            item.accuracy = fix.accuracy
            item.fixTime = RFC3339.format(fix.time)
        }
        return item
    }

    /// The same sighting with one part of its place dropped, for a server that refused its position
    /// (a fix's time, a fix from a sentinel it knows at a fixed place): a fix becomes "no fix", "no
    /// fix" the enrolled place. Nil when nothing is left to drop.
    public var withoutPosition: Sighting? {
        var copy = self
        switch place {
        case .fix: copy.place = .noFix
        case .noFix: copy.place = .enrolled
        case .enrolled: return nil
        }
        return copy
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
