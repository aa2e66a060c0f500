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

    /// The logged-in account's session, if any (`bikebeacon login`).
    static func session() throws -> AccountSession? {
        guard let path = ConfigDirectory.sessionFile(environment: ProcessInfo.processInfo.environment) else { return nil }
        return try SessionFile.load(path: path)
    }

    /// The account's bikes, or nil when not logged in.
    static func accountBikes() async throws -> [Bike]? {
        guard let session = try session() else { return nil }
        return try await AccountClient(server: session.server).bikes(token: session.token)
    }

    /// Local bikes come first; the account's bikes (after `bikebeacon login`) are asked for only
    /// when the local file does not settle the question, so `range` works offline.
    static func resolve(bike name: String?, beacon text: String?, bikesFile: String?) async throws -> (name: String?, beacon: BeaconID) {
        if let text { return (nil, try beacon(text)) }
        let path = try Self.bikesFile(bikesFile)
        let local = try BikesFile.load(path: path).bikes
        if let name {
            if let bike = local.first(where: { $0.name == name }) { return (bike.name, bike.beacon) }
            let account = try await accountBikes() ?? []
            if let bike = account.first(where: { $0.name == name }) { return (bike.name, bike.beacon) }
            throw ValidationError(BikeBookError.unknownBike(name, known: (local + account).map(\.name)).description + " (in \(path)\(account.isEmpty ? "" : " or your account"))")
        }
        let candidates = local.isEmpty ? try await accountBikes() ?? [] : local
        switch candidates.count {
        case 1:
            return (candidates[0].name, candidates[0].beacon)
        case 0:
            throw ValidationError("no bike chosen: pass --beacon UUID:MAJOR:MINOR, or add a bike with: bikebeacon bikes add NAME --beacon UUID:MAJOR:MINOR")
        default:
            throw ValidationError("which bike? pass --bike NAME, one of: \(candidates.map(\.name).joined(separator: ", "))")
        }
    }
}
