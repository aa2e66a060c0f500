/// `POST /v1/found/lookup`: a tag's ID as `bikebeacon scan` or a BLE app shows it (the formats `BeaconPaste` reads).
public struct FoundTagLookup: Codable, Sendable, Equatable {
    public var tag: String

    public init(tag: String) {
        self.tag = tag
    }
}

/// The answer to a lookup: only whether the tag is on a registered bike, nothing about its owner or state.
public struct FoundTagAnswer: Codable, Sendable, Equatable {
    public var registered: Bool

    public init(registered: Bool) {
        self.registered = registered
    }
}

/// `POST /v1/found/message`: a finder tells the bike's owner where it is. `contact` is passed on only when given.
public struct FoundTagMessage: Codable, Sendable, Equatable {
    public var tag: String
    public var message: String
    public var contact: String?

    public init(tag: String, message: String, contact: String? = nil) {
        self.tag = tag
        self.message = message
        self.contact = contact
    }
}

/// `POST /v1/found/report`: someone found this tag hidden on them or their things. Its bike's missing
/// status is frozen at once and the operator is told; `contact` lets the operator answer.
public struct HiddenTagReport: Codable, Sendable, Equatable {
    public var tag: String
    public var message: String?
    public var contact: String?

    public init(tag: String, message: String? = nil, contact: String? = nil) {
        self.tag = tag
        self.message = message
        self.contact = contact
    }
}

/// The answer to a report: its reference, for writing to the operator.
public struct HiddenTagReceipt: Codable, Sendable, Equatable {
    public var reference: String

    public init(reference: String) {
        self.reference = reference
    }
}
