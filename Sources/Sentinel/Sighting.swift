import Beacon
import Foundation
import Proximity

/// What a sentinel says about a missing bike: it came, it is still here, it left.
public enum SightingEvent: String, Codable, Sendable, CaseIterable {
    case arrived, present, departed
}

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

/// The wire form of `POST /v1/sightings` items: flat beacon fields, RFC 3339 times in UTC with
/// milliseconds (what the server stores).
extension Sighting: Codable {
    enum CodingKeys: String, CodingKey {
        case id, uuid, major, minor, event, time, firstSeen, lastSeen, rssi, distance, zone
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(UUID.self, forKey: .id)
        beacon = BeaconID(uuid: try c.decode(UUID.self, forKey: .uuid),
                          major: try c.decode(UInt16.self, forKey: .major),
                          minor: try c.decode(UInt16.self, forKey: .minor))
        event = try c.decode(SightingEvent.self, forKey: .event)
        time = try RFC3339.decode(c, .time)
        firstSeen = try RFC3339.decode(c, .firstSeen)
        lastSeen = try RFC3339.decode(c, .lastSeen)
        rssi = try c.decode(Int.self, forKey: .rssi)
        distance = try c.decodeIfPresent(Double.self, forKey: .distance)
        zone = try c.decode(Zone.self, forKey: .zone)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id.uuidString.lowercased(), forKey: .id)
        try c.encode(beacon.uuid.uuidString, forKey: .uuid)
        try c.encode(beacon.major, forKey: .major)
        try c.encode(beacon.minor, forKey: .minor)
        try c.encode(event, forKey: .event)
        try c.encode(RFC3339.format(time), forKey: .time)
        try c.encode(RFC3339.format(firstSeen), forKey: .firstSeen)
        try c.encode(RFC3339.format(lastSeen), forKey: .lastSeen)
        try c.encode(rssi, forKey: .rssi)
        if let distance, distance.isFinite { try c.encode(distance, forKey: .distance) } else { try c.encodeNil(forKey: .distance) }
        try c.encode(zone, forKey: .zone)
    }
}

/// RFC 3339 date-times as the API speaks them: `2026-11-21T22:13:44.123Z`.
enum RFC3339 {
    static let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: TimeZone(identifier: "UTC") ?? .current)
    static let wholeSeconds = Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC") ?? .current)

    /// Rounded to the millisecond from integers, so format → parse → format is stable (a date
    /// formatter truncates, and 35.007 parsed back is 35.00699…).
    static func format(_ epochSeconds: Double) -> String {
        let milliseconds = Int64((epochSeconds * 1000).rounded())
        let (seconds, fraction) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        let (whole, millis) = fraction < 0 ? (seconds - 1, fraction + 1000) : (seconds, fraction)
        let text = Date(timeIntervalSince1970: Double(whole)).formatted(wholeSeconds)
        let digits = String(millis)
        return text.dropLast() + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }

    static func parse(_ text: String) -> Double? {
        (try? style.parse(text)).map(\.timeIntervalSince1970)
    }

    static func decode<K: CodingKey>(_ container: KeyedDecodingContainer<K>, _ key: K) throws -> Double {
        let text = try container.decode(String.self, forKey: key)
        guard let value = parse(text) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "'\(text)' is not an RFC 3339 date-time")
        }
        return value
    }
}
