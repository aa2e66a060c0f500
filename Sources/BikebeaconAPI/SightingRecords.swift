import Beacon

/// A stored sighting as the bike's owner reads it (`GET /v1/bikes/{id}/sightings`): where the
/// sentinel is enrolled, what it heard, when. Times are RFC 3339 (`Timestamp`).
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
    public var latitude: Double
    public var longitude: Double
    /// The sentinel's name.
    public var sentinel: String
    public var receivedAt: String

    public init(id: String, clientId: String, bikeId: String, beacon: BeaconID, event: String, time: String, firstSeen: String,
                lastSeen: String, rssi: Int, distance: Double?, zone: String, latitude: Double, longitude: Double,
                sentinel: String, receivedAt: String) {
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
        self.sentinel = sentinel
        self.receivedAt = receivedAt
    }
}

/// One page of a bike's sightings, newest first.
public struct SightingPage: Codable, Sendable, Equatable {
    public var sightings: [SightingRecord]
    /// Pass as `?cursor=` for the next (older) page; absent on the last page.
    public var nextCursor: String?

    public init(sightings: [SightingRecord], nextCursor: String?) {
        self.sightings = sightings
        self.nextCursor = nextCursor
    }
}
