import Beacon

/// What an owner is told when their missing bike arrives at or leaves a sentinel: the `data` of
/// a `/v1/events` server-sent event and the body of a webhook POST.
public struct NotificationEvent: Codable, Sendable, Equatable {
    /// `sighting` (the only kind so far).
    public var type: String
    public var sightingId: String
    public var bikeId: String
    public var bikeName: String
    public var event: String
    public var time: String
    public var beacon: BeaconID
    public var zone: String
    public var rssi: Int
    public var distance: Double?
    public var sentinel: String
    /// Where it was heard; absent when a roaming sentinel had no fix.
    public var latitude: Double?
    public var longitude: Double?
    /// A roaming sentinel's fix accuracy, metres.
    public var accuracy: Double?
    /// Where the bike most likely is with this sighting, as its owner may see it (#44).
    public var estimate: PositionEstimate?

    public init(type: String, sightingId: String, bikeId: String, bikeName: String, event: String, time: String,
                beacon: BeaconID, zone: String, rssi: Int, distance: Double?, sentinel: String, latitude: Double?,
                longitude: Double?, accuracy: Double? = nil, estimate: PositionEstimate? = nil) {
        self.type = type
        self.sightingId = sightingId
        self.bikeId = bikeId
        self.bikeName = bikeName
        self.event = event
        self.time = time
        self.beacon = beacon
        self.zone = zone
        self.rssi = rssi
        self.distance = distance
        self.sentinel = sentinel
        self.latitude = latitude
        self.longitude = longitude
        self.accuracy = accuracy
        self.estimate = estimate
    }
}
