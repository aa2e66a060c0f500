import Beacon

/// A stored sighting as the bike's owner reads it (`GET /v1/bikes/{id}/sightings`): where it was
/// heard (the sentinel's enrolled place, or a roaming sentinel's own fix), what, when. Times are
/// RFC 3339 (`Timestamp`).
public struct SightingRecord: Codable, Sendable, Equatable {
    public var id: String
    /// The id the sentinel chose.
    public var clientId: String
    public var bikeId: String
    public var beacon: BeaconID
    public var event: String
    public var time: String
    public var firstSeen: String
    public var lastSeen: String
    public var rssi: Int
    public var distance: Double?
    public var zone: String
    /// Where it was heard; absent when a roaming sentinel had no fix (`fix` is `none`).
    public var latitude: Double?
    public var longitude: Double?
    /// The fix's horizontal accuracy, metres (roaming sentinels).
    public var accuracy: Double?
    /// The fix's own time (roaming sentinels).
    public var fixTime: String?
    /// `gps`: the position is the roaming sentinel's own fix; `none`: it had none; absent: the sentinel's enrolled place.
    public var fix: String?
    /// The sentinel's name.
    public var sentinel: String
    public var receivedAt: String
    /// True for a sighting stored while a report of the tag sealed the bike, shown once the operator released the
    /// report (#43); absent otherwise.
    public var heldForReview: Bool?

    public init(id: String, clientId: String, bikeId: String, beacon: BeaconID, event: String, time: String, firstSeen: String,
                lastSeen: String, rssi: Int, distance: Double?, zone: String, latitude: Double?, longitude: Double?,
                accuracy: Double? = nil, fixTime: String? = nil, fix: String? = nil, sentinel: String, receivedAt: String,
                heldForReview: Bool? = nil) {
        self.id = id
        self.clientId = clientId
        self.bikeId = bikeId
        self.beacon = beacon
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
        self.sentinel = sentinel
        self.receivedAt = receivedAt
        self.heldForReview = heldForReview
    }
}

extension SightingRecord {
    /// Where, in words: "at Cafe Rosa (52.0907, 5.1214)" for a sentinel at a fixed place ("at a
    /// private sentinel (52.1250, 4.6561, ±500 m)" for someone's home sentinel), "near
    /// 52.0912, 5.1231 (±8 m) by Bus line 12" for a roaming one, "by Bus line 12 (no position)"
    /// when it had no fix.
    public var place: String {
        guard let latitude, let longitude else { return "by \(sentinel) (no position)" }
        let coordinates = "\(Self.degrees(latitude)), \(Self.degrees(longitude))"
        let within = accuracy.map { "±\(Int($0.rounded())) m" }
        guard fix == "gps" else { return "at \(sentinel) (\(coordinates)\(within.map { ", \($0)" } ?? ""))" }
        return "near \(coordinates)\(within.map { " (\($0))" } ?? "") by \(sentinel)"
    }

    /// Four decimals: about 10 m, as fine as a phone's fix.
    public static func degrees(_ value: Double) -> String {
        let scaled = Int((value * 10_000).rounded())
        let sign = scaled < 0 ? "-" : ""
        let fraction = String(abs(scaled) % 10_000)
        return "\(sign)\(abs(scaled) / 10_000).\(String(repeating: "0", count: 4 - fraction.count))\(fraction)"
    }
}

/// One page of a bike's sightings, newest first.
public struct SightingPage: Codable, Sendable, Equatable {
    public var sightings: [SightingRecord]
    /// Pass as `?cursor=` for the next (older) page; absent on the last page.
    public var nextCursor: String?
    /// Where the bike most likely is, from the latest window of these sightings; on the first page only.
    public var estimate: PositionEstimate?

    public init(sightings: [SightingRecord], nextCursor: String?, estimate: PositionEstimate? = nil) {
        self.sightings = sightings
        self.nextCursor = nextCursor
        self.estimate = estimate
    }
}
