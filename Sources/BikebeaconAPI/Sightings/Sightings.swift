/// What a sentinel says about a missing bike: it came, it is still here, it left; or, from a
/// roaming sentinel on the move, it went past (`passing`).
public enum SightingEvent: String, Codable, Sendable, CaseIterable {
    case arrived, present, departed, passing
}

/// The zones a sighting may carry (the `Proximity` module's, as text).
public enum SightingZones {
    public static let all = ["immediate", "near", "far", "unknown"]
}

/// One item of `POST /v1/sightings`, field for field as it travels. The fields keep their JSON
/// types (text, whole numbers) so that the server can check each item on its own and refuse a
/// bad one with a reason instead of failing the whole batch. Times are RFC 3339 (`Timestamp`).
public struct SightingItem: Codable, Sendable, Equatable {
    /// Chosen by the sentinel when the sighting is created; repeating it is harmless.
    public var id: String
    public var uuid: String
    public var major: Int
    public var minor: Int
    public var event: String
    public var time: String
    public var firstSeen: String
    public var lastSeen: String
    public var rssi: Int
    /// Metres; `null` when unknown.
    public var distance: Double?
    public var zone: String
    /// Where a roaming sentinel was when it heard the bike (degrees, WGS 84); absent from a
    /// sentinel at a fixed place, whose sightings are placed where it was enrolled.
    public var latitude: Double?
    public var longitude: Double?
    /// The horizontal accuracy of that fix, metres; absent when the receiver gave none.
    public var accuracy: Double?
    /// The fix's own time, RFC 3339.
    public var fixTime: String?
    /// `gps`: latitude and longitude are the sentinel's own; `none`: a roaming sentinel had no
    /// recent fix; absent: the sentinel's enrolled place.
    public var fix: String?

    public init(id: String, uuid: String, major: Int, minor: Int, event: String, time: String, firstSeen: String,
                lastSeen: String, rssi: Int, distance: Double?, zone: String, latitude: Double? = nil, longitude: Double? = nil,
                accuracy: Double? = nil, fixTime: String? = nil, fix: String? = nil) {
        self.id = id
        self.uuid = uuid
        self.major = major
        self.minor = minor
        self.event = event
        self.time = time
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
        self.rssi = rssi
        self.distance = distance
        self.zone = zone
        self.latitude = latitude
        self.longitude = longitude
        self.accuracy = accuracy
        self.fixTime = fixTime
        self.fix = fix
    }

    /// An unknown distance is sent as an explicit `null`, never left out.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(uuid, forKey: .uuid)
        try c.encode(major, forKey: .major)
        try c.encode(minor, forKey: .minor)
        try c.encode(event, forKey: .event)
        try c.encode(time, forKey: .time)
        try c.encode(firstSeen, forKey: .firstSeen)
        try c.encode(lastSeen, forKey: .lastSeen)
        try c.encode(rssi, forKey: .rssi)
        if let distance, distance.isFinite { try c.encode(distance, forKey: .distance) } else { try c.encodeNil(forKey: .distance) }
        try c.encode(zone, forKey: .zone)
        // Position fields only from a roaming sentinel: a fixed one sends exactly what it always did.
        try c.encodeIfPresent(latitude, forKey: .latitude)
        try c.encodeIfPresent(longitude, forKey: .longitude)
        try c.encodeIfPresent(accuracy, forKey: .accuracy)
        try c.encodeIfPresent(fixTime, forKey: .fixTime)
        try c.encodeIfPresent(fix, forKey: .fix)
    }
}

/// `POST /v1/sightings`: at most `maxItems` sightings.
public struct SightingBatch<Item: Codable & Sendable>: Codable, Sendable {
    public static var maxItems: Int { 500 }

    public var sightings: [Item]

    public init(sightings: [Item]) {
        self.sightings = sightings
    }
}

/// A sighting the server refused, and why; `id` is echoed exactly as sent.
public struct Rejection: Error, Codable, Sendable, Equatable {
    public var id: String
    public var reason: String
    /// The field the server refused (`fixTime`, `time`, `uuid`…), so a sentinel can tell a bad
    /// optional part it can drop and resend without from a sighting that cannot be stored at all.
    public var field: String?

    public init(id: String, reason: String, field: String? = nil) {
        self.id = id
        self.reason = reason
        self.field = field
    }

    /// The fields of a sighting's own position; a sighting refused for one of them is still a
    /// sighting without it.
    public static let positionFields: Set<String> = ["fix", "latitude", "longitude", "accuracy", "fixTime"]

    /// Whether dropping the sighting's position would answer this refusal.
    public var isAboutPosition: Bool { field.map(Self.positionFields.contains) ?? false }
}

/// The answer to a batch: how many were stored, how many the server had already, which it refused.
public struct SightingResult: Codable, Sendable, Equatable {
    public var accepted: Int
    public var duplicates: Int
    public var rejected: [Rejection]

    public init(accepted: Int, duplicates: Int, rejected: [Rejection]) {
        self.accepted = accepted
        self.duplicates = duplicates
        self.rejected = rejected
    }
}
