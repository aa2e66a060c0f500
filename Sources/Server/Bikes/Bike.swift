import BikebeaconAPI
import Foundation
import Registry

extension Bike {
    var description: BikeDescription { BikeDescription(make: make, model: model, colour: colour) }
}

/// The server's rules for the fields an owner sends.
extension BikeFields {
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
                               ("frameNumber", frameNumber), ("engineNumber", engineNumber),
                               ("recoveryContact", recoveryContact)] {
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
        if let recoveryContact { bike.recoveryContact = recoveryContact }
        if let beacon { bike.beacon = beacon }
        return bike
    }
}
