/// `POST /v1/bikes/{id}/shares`: a read-only link to a bike for the police, an insurer or a friend.
public struct ShareRequest: Codable, Sendable, Equatable {
    /// Hours until the link stops working, 1…720 (30 days).
    public var expiresIn: Int
    /// The owner's own note of who has it ("Police case 1234"); never shown on the shared page.
    public var label: String?
    /// Whether the bike's notes appear on the shared page (they may hold private details).
    public var includeNotes: Bool?

    public init(expiresIn: Int, label: String? = nil, includeNotes: Bool? = nil) {
        self.expiresIn = expiresIn
        self.label = label
        self.includeNotes = includeNotes
    }
}

/// A share link as its owner sees it. `url` and `token` are in the answer to its creation only:
/// the server keeps a digest, so it cannot show them again.
public struct Share: Codable, Sendable, Equatable {
    public var id: String
    public var bikeId: String
    public var label: String
    public var includeNotes: Bool
    public var createdAt: String
    public var expiresAt: String
    public var revokedAt: String?
    /// `active`, `expired` or `revoked`.
    public var status: String
    /// How often the shared page was opened.
    public var views: Int
    public var lastViewedAt: String?
    public var url: String?
    public var token: String?

    public init(id: String, bikeId: String, label: String, includeNotes: Bool, createdAt: String, expiresAt: String,
                revokedAt: String?, status: String, views: Int, lastViewedAt: String?, url: String? = nil, token: String? = nil) {
        self.id = id
        self.bikeId = bikeId
        self.label = label
        self.includeNotes = includeNotes
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
        self.status = status
        self.views = views
        self.lastViewedAt = lastViewedAt
        self.url = url
        self.token = token
    }
}

public struct ShareList: Codable, Sendable, Equatable {
    public var shares: [Share]

    public init(shares: [Share]) {
        self.shares = shares
    }
}

/// What a share link shows, without an account: the bike and where it was heard, and nothing
/// about its owner (no e-mail, no account id, no beacon identity a thief could clone).
public struct SharedBike: Codable, Sendable, Equatable {
    public var name: String
    public var make: String
    public var model: String
    public var colour: String
    public var frameNumber: String
    public var engineNumber: String
    /// Only when the owner chose to share them.
    public var notes: String?
    public var missing: Bool
    public var missingSince: String?
    public var expiresAt: String
    /// Newest first.
    public var sightings: [SharedSighting]
    /// Who listens around the last place (public sentinels only; a private sentinel's place on its grid).
    public var coverage: BikeCoverage?
    /// Where the bike most likely is, as anyone may see it (a home sentinel's share on its grid).
    public var estimate: PositionEstimate?

    public init(name: String, make: String, model: String, colour: String, frameNumber: String, engineNumber: String,
                notes: String?, missing: Bool, missingSince: String?, expiresAt: String, sightings: [SharedSighting],
                coverage: BikeCoverage? = nil, estimate: PositionEstimate? = nil) {
        self.name = name
        self.make = make
        self.model = model
        self.colour = colour
        self.frameNumber = frameNumber
        self.engineNumber = engineNumber
        self.notes = notes
        self.missing = missing
        self.missingSince = missingSince
        self.expiresAt = expiresAt
        self.sightings = sightings
        self.coverage = coverage
        self.estimate = estimate
    }
}

/// One sighting on a shared page: where and when, not the radio details.
public struct SharedSighting: Codable, Sendable, Equatable {
    public var id: String
    public var event: String
    public var time: String
    public var place: String
    public var sentinel: String
    public var latitude: Double?
    public var longitude: Double?
    public var zone: String
    public var distance: Double?

    public init(_ record: SightingRecord) {
        id = record.id
        event = record.event
        time = record.time
        place = record.place
        sentinel = record.sentinel
        latitude = record.latitude
        longitude = record.longitude
        zone = record.zone
        distance = record.distance
    }
}
