import Beacon
import Foundation
import Registry

/// An owner's bike as the API shows it.
struct Bike: Codable, Sendable, Equatable {
    var id: String
    var name: String
    var make: String
    var model: String
    var colour: String
    var frameNumber: String
    var engineNumber: String
    var notes: String
    var beacon: BeaconID
    var missing: Bool
    var missingSince: String?
    var createdAt: String
    var updatedAt: String

    var description: BikeDescription { BikeDescription(make: make, model: model, colour: colour) }
}

/// The fields an owner sends to create a bike (`POST`) or change one (`PATCH`: only the fields present).
struct BikeFields: Codable, Sendable {
    var name: String?
    var make: String?
    var model: String?
    var colour: String?
    var frameNumber: String?
    var engineNumber: String?
    var notes: String?
    var beacon: BeaconID?

    static let maxLength = 200
    static let maxNotesLength = 4000

    /// Checks lengths; a create also needs a name and a beacon.
    func validate(creating: Bool) throws(APIError) {
        if creating {
            guard let name, !name.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw .invalid("a bike needs a non-empty 'name'")
            }
            guard beacon != nil else { throw .invalid("a bike needs a 'beacon' {uuid, major, minor}") }
        } else if let name, name.trimmingCharacters(in: .whitespaces).isEmpty {
            throw .invalid("'name' must not be empty")
        }
        for (field, value) in [("name", name), ("make", make), ("model", model), ("colour", colour),
                               ("frameNumber", frameNumber), ("engineNumber", engineNumber)] {
            if let value, value.count > Self.maxLength {
                throw .invalid("'\(field)' is longer than \(Self.maxLength) characters")
            }
        }
        if let notes, notes.count > Self.maxNotesLength {
            throw .invalid("'notes' is longer than \(Self.maxNotesLength) characters")
        }
    }

    /// The bike after applying these fields.
    func applied(to bike: Bike) -> Bike {
        var bike = bike
        if let name { bike.name = name }
        if let make { bike.make = make }
        if let model { bike.model = model }
        if let colour { bike.colour = colour }
        if let frameNumber { bike.frameNumber = frameNumber }
        if let engineNumber { bike.engineNumber = engineNumber }
        if let notes { bike.notes = notes }
        if let beacon { bike.beacon = beacon }
        return bike
    }
}

/// One entry of the missing list on the wire: `{uuid, major, minor, description}`.
struct MissingBeaconJSON: Codable, Sendable {
    var uuid: UUID
    var major: UInt16
    var minor: UInt16
    var description: BikeDescription

    init(_ bike: MissingBike) {
        uuid = bike.beacon.uuid
        major = bike.beacon.major
        minor = bike.beacon.minor
        description = bike.description
    }
}

struct MissingListJSON: Codable, Sendable {
    var version: Int64
    var beacons: [MissingBeaconJSON]
}

struct MissingDeltaJSON: Codable, Sendable {
    var since: Int64
    var version: Int64
    var added: [MissingBeaconJSON]
    var removed: [BeaconID]

    init(_ delta: MissingListDelta) {
        since = delta.since
        version = delta.version
        added = delta.added.map(MissingBeaconJSON.init)
        removed = delta.removed
    }
}
