/// `POST /v1/sentinel/enrol`: a one-time enrolment code from `bikebeacon-server sentinels add`.
public struct EnrolmentRequest: Codable, Sendable, Equatable {
    public var code: String

    public init(code: String) {
        self.code = code
    }
}

/// Where a sentinel at a fixed place stands.
public struct SentinelPlace: Codable, Sendable, Equatable {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// What an enrolment code is exchanged for: the sentinel's token and what its config needs.
public struct SentinelEnrolment: Codable, Sendable, Equatable {
    public var token: String
    public var name: String
    /// Where people outside reach the server (`serve --public-url`, else the address the request came in on).
    public var serverURL: String
    /// A sentinel that moves: its sightings carry the position gpsd gives, and `place` is nil.
    public var roaming: Bool
    public var place: SentinelPlace?

    public init(token: String, name: String, serverURL: String, roaming: Bool, place: SentinelPlace?) {
        self.token = token
        self.name = name
        self.serverURL = serverURL
        self.roaming = roaming
        self.place = place
    }
}
