import Beacon
import Proximity
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Which bike a command means: a beacon given outright, a bike by name from the bikes file,
/// or the only bike there is. The environment comes in, so the rule is testable as a value.
public enum BikeChoice {
    /// A choice the owner has to make differently; the text says how.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var description: String
        public init(_ description: String) { self.description = description }
    }

    /// The bikes file in use: `--file`/`--bikes-file` when given, else the one in the config directory.
    public static func bikesFile(_ override: String?, environment: [String: String]) throws(Failure) -> String {
        if let override { return override }
        guard let path = ConfigDirectory.bikesFile(environment: environment) else {
            throw Failure("cannot find the config directory: set HOME or XDG_CONFIG_HOME, or pass the bikes file's path")
        }
        return path
    }

    /// A beacon as the owner has it: `UUID:MAJOR:MINOR`, or pasted from a tag's app, label or
    /// link in any form `BeaconPaste` reads.
    public static func beacon(_ text: String) throws(Failure) -> BeaconID {
        do {
            return try BeaconPaste.parse(text)
        } catch {
            throw Failure("\"\(text)\" is not a beacon: \(error)")
        }
    }

    /// The logged-in account's session, if any (`bikebeacon login`).
    public static func session(environment: [String: String]) throws -> AccountSession? {
        guard let path = ConfigDirectory.sessionFile(environment: environment) else { return nil }
        return try SessionFile.load(path: path)
    }

    /// The account's bikes from its server, or nil when not logged in.
    public static func accountBikes(environment: [String: String]) async throws -> [Bike]? {
        guard let session = try session(environment: environment) else { return nil }
        return try await AccountClient(server: session.server).bikes(token: session.token)
    }

    /// Local bikes come first; the account's bikes (`accountBikes`, after `bikebeacon login`) are
    /// asked for only when the local file does not settle the question, so `range` works offline.
    public static func resolve(
        bike name: String?, beacon text: String?, bikesFile: String?, environment: [String: String],
        accountBikes: () async throws -> [Bike]?
    ) async throws -> (name: String?, beacon: BeaconID, calibration: TagCalibration?) {
        if let text { return (nil, try beacon(text), nil) }
        let path = try Self.bikesFile(bikesFile, environment: environment)
        let local = try BikesFile.load(path: path).bikes
        if let name {
            if let bike = local.first(where: { $0.name == name }) { return (bike.name, bike.beacon, bike.calibration) }
            let account = try await accountBikes() ?? []
            if let bike = account.first(where: { $0.name == name }) { return (bike.name, bike.beacon, bike.calibration) }
            throw Failure(BikeBookError.unknownBike(name, known: (local + account).map(\.name)).description + " (in \(path)\(account.isEmpty ? "" : " or your account"))")
        }
        let candidates = local.isEmpty ? try await accountBikes() ?? [] : local
        switch candidates.count {
        case 1:
            return (candidates[0].name, candidates[0].beacon, candidates[0].calibration)
        case 0:
            throw Failure("no bike chosen: pass --beacon UUID:MAJOR:MINOR, or add a bike with: bikebeacon bikes add NAME --beacon UUID:MAJOR:MINOR")
        default:
            throw Failure("which bike? pass --bike NAME, one of: \(candidates.map(\.name).joined(separator: ", "))")
        }
    }
}
