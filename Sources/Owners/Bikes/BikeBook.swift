import Beacon
import Proximity
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why a change to the bike list was refused; each says what to do instead.
public enum BikeBookError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalidName(String)
    case duplicateName(String)
    case beaconInUse(BeaconID, by: String)
    case unknownBike(String, known: [String])

    public var description: String {
        switch self {
        case .invalidName(let name):
            "\"\(name)\" is not a usable bike name: use 1 to \(BikeBook.longestName) characters, no control characters"
        case .duplicateName(let name):
            "there is already a bike called \"\(name)\": remove it first or pick another name"
        case .beaconInUse(let beacon, let other):
            "beacon \(beacon) already belongs to \"\(other)\": a tag can be on one bike only"
        case .unknownBike(let name, let known):
            known.isEmpty
                ? "no bike called \"\(name)\": there are no bikes yet (add one with: bikebeacon bikes add NAME --beacon UUID:MAJOR:MINOR)"
                : "no bike called \"\(name)\": known bikes are \(known.map { "\"\($0)\"" }.joined(separator: ", "))"
        }
    }
}

/// The owner's own bikes, as kept in the local bikes file. Pure value: the file lives elsewhere.
public struct BikeBook: Equatable, Sendable, Codable {
    public private(set) var bikes: [Bike]

    public static let longestName = 64

    public init(bikes: [Bike] = []) {
        self.bikes = bikes
    }

    public func bike(named name: String) -> Bike? {
        bikes.first { $0.name == name }
    }

    /// Adds a bike; names are unique and a beacon belongs to one bike, as on the server.
    public mutating func add(_ bike: Bike) throws(BikeBookError) {
        let name = String(bike.name.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
        guard !name.isEmpty, name.count <= Self.longestName,
              !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { throw .invalidName(bike.name) }
        if bikes.contains(where: { $0.name == name }) { throw .duplicateName(name) }
        if let owner = bikes.first(where: { $0.beacon == bike.beacon }) { throw .beaconInUse(bike.beacon, by: owner.name) }
        bikes.append(Bike(name: name, beacon: bike.beacon, calibration: bike.calibration))
    }

    /// Stores what `bikebeacon calibrate` measured for the named bike's tag.
    public mutating func calibrate(named name: String, _ calibration: TagCalibration) throws(BikeBookError) {
        guard let index = bikes.firstIndex(where: { $0.name == name }) else {
            throw .unknownBike(name, known: bikes.map(\.name))
        }
        bikes[index].calibration = calibration
    }

    /// Removes the named bike and returns it.
    @discardableResult
    public mutating func remove(named name: String) throws(BikeBookError) -> Bike {
        guard let index = bikes.firstIndex(where: { $0.name == name }) else {
            throw .unknownBike(name, known: bikes.map(\.name))
        }
        return bikes.remove(at: index)
    }
}

extension BikeBook {
    enum CodingKeys: String, CodingKey { case bikes }

    /// Decoding applies the same rules as `add`, so a hand-edited file with two bikes of the
    /// same name or beacon is reported rather than silently half-used.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var book = BikeBook()
        for bike in try container.decode([Bike].self, forKey: .bikes) {
            do {
                try book.add(bike)
            } catch {
                throw DecodingError.dataCorruptedError(forKey: .bikes, in: container, debugDescription: error.description)
            }
        }
        self = book
    }
}
