import Beacon

/// What an owner sends to register a bike (`POST`, needs `name` and `beacon`) or to change one
/// (`PATCH`: only the fields present change).
public struct BikeFields: Codable, Sendable, Equatable {
    public var name: String?
    public var make: String?
    public var model: String?
    public var colour: String?
    public var frameNumber: String?
    public var engineNumber: String?
    public var notes: String?
    public var beacon: BeaconID?
    /// Who to call for a breakdown or recovery (a name and number, as the owner writes it); on the theft report.
    public var recoveryContact: String?

    public init(name: String? = nil, make: String? = nil, model: String? = nil, colour: String? = nil,
                frameNumber: String? = nil, engineNumber: String? = nil, notes: String? = nil, beacon: BeaconID? = nil,
                recoveryContact: String? = nil) {
        self.name = name
        self.make = make
        self.model = model
        self.colour = colour
        self.frameNumber = frameNumber
        self.engineNumber = engineNumber
        self.notes = notes
        self.beacon = beacon
        self.recoveryContact = recoveryContact
    }
}

/// `POST /v1/bikes/{id}/missing`'s optional body. A tag put on the bike less than the server's hold
/// ago (24 h unless the operator sets `serve --new-tag-hold`) is marked missing only with the reference
/// of a police report about the theft, which the server's operator can see (#35).
public struct MissingRequest: Codable, Sendable, Equatable {
    public var policeReference: String?

    public init(policeReference: String? = nil) {
        self.policeReference = policeReference
    }
}

/// An owner's bike as the API shows it. Times are RFC 3339 (`Timestamp`).
public struct Bike: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var make: String
    public var model: String
    public var colour: String
    public var frameNumber: String
    public var engineNumber: String
    public var notes: String
    public var beacon: BeaconID
    public var missing: Bool
    public var missingSince: String?
    /// When the bike leaves the missing list unless the owner renews it (marks it missing again).
    public var missingUntil: String?
    public var createdAt: String
    public var updatedAt: String
    /// Empty when not set.
    public var recoveryContact: String
    /// True while someone's report that the tag was hidden on them is open: the bike is off the missing list
    /// and cannot be marked missing until the operator has looked at it. Absent otherwise.
    public var underReview: Bool?

    public init(id: String, name: String, make: String, model: String, colour: String, frameNumber: String,
                engineNumber: String, notes: String, beacon: BeaconID, missing: Bool, missingSince: String?,
                createdAt: String, updatedAt: String, recoveryContact: String = "", missingUntil: String? = nil,
                underReview: Bool? = nil) {
        self.id = id
        self.name = name
        self.make = make
        self.model = model
        self.colour = colour
        self.frameNumber = frameNumber
        self.engineNumber = engineNumber
        self.notes = notes
        self.beacon = beacon
        self.missing = missing
        self.missingSince = missingSince
        self.missingUntil = missingUntil
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.recoveryContact = recoveryContact
        self.underReview = underReview
    }
}

/// `GET /v1/bikes`.
public struct BikeList: Codable, Sendable, Equatable {
    public var bikes: [Bike]

    public init(bikes: [Bike]) {
        self.bikes = bikes
    }
}
