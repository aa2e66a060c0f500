import ArgumentParser
import Beacon
import Foundation
import Owners

/// Which bike a command means: a beacon given outright, a bike by name from the bikes file,
/// or the only bike there is.
enum BikeChoice {
    /// The bikes file in use: `--file`/`--bikes-file` when given, else the one in the config directory.
    static func bikesFile(_ override: String?) throws -> String {
        if let override { return override }
        guard let path = ConfigDirectory.bikesFile(environment: ProcessInfo.processInfo.environment) else {
            throw ValidationError("cannot find the config directory: set HOME or XDG_CONFIG_HOME, or pass the bikes file's path")
        }
        return path
    }

    static func beacon(_ text: String) throws -> BeaconID {
        guard let beacon = BeaconID(text) else {
            throw ValidationError("\"\(text)\" is not a beacon: write it as UUID:MAJOR:MINOR, e.g. 494E5445-4C4C-495F-524F-434B535F4857:20596:25984")
        }
        return beacon
    }

    static func resolve(bike name: String?, beacon text: String?, bikesFile: String?) throws -> (name: String?, beacon: BeaconID) {
        if let text { return (nil, try beacon(text)) }
        let path = try Self.bikesFile(bikesFile)
        let book = try BikesFile.load(path: path)
        if let name {
            guard let bike = book.bike(named: name) else {
                throw ValidationError(BikeBookError.unknownBike(name, known: book.bikes.map(\.name)).description + " (in \(path))")
            }
            return (bike.name, bike.beacon)
        }
        switch book.bikes.count {
        case 1:
            return (book.bikes[0].name, book.bikes[0].beacon)
        case 0:
            throw ValidationError("no bike chosen: pass --beacon UUID:MAJOR:MINOR, or add a bike with: bikebeacon bikes add NAME --beacon UUID:MAJOR:MINOR")
        default:
            throw ValidationError("which bike? pass --bike NAME, one of: \(book.bikes.map(\.name).joined(separator: ", "))")
        }
    }
}
