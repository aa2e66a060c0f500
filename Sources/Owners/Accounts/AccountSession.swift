import Durable
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The owner's log-in to a bikebeacon server, kept in the config directory by `bikebeacon login`.
public struct AccountSession: Codable, Equatable, Sendable {
    /// The server's base URL, e.g. `https://bikes.example.org`.
    public var server: String
    public var email: String
    public var token: String

    public init(server: String, email: String, token: String) {
        self.server = server
        self.email = email
        self.token = token
    }
}

/// Why the session file could not be read or written.
public enum SessionFileError: Error, Equatable, Sendable, CustomStringConvertible {
    case corrupt(path: String)
    case unreadable(path: String, reason: String)
    case unwritable(path: String, reason: String)

    public var description: String {
        switch self {
        case .corrupt(let path): "the session file \(path) is not valid: log in again with: bikebeacon login URL"
        case .unreadable(let path, let reason): "cannot read the session file \(path): \(reason)"
        case .unwritable(let path, let reason): "cannot write the session file \(path): \(reason)"
        }
    }
}

/// Loads and saves the session. The token is a password equivalent: the file is written
/// atomically with mode 0600 in a 0700 directory, so other users cannot read it.
public enum SessionFile {
    public static func load(path: String) throws(SessionFileError) -> AccountSession? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw .unreadable(path: path, reason: IOErrorText.describe(error))
        }
        guard data.count < 1 << 16, let session = try? JSONDecoder().decode(AccountSession.self, from: data) else {
            throw .corrupt(path: path)
        }
        return session
    }

    public static func save(_ session: AccountSession, path: String) throws(SessionFileError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            let data = try encoder.encode(session)
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
            if !directory.isEmpty {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            }
            try AtomicFile.write(data + Data("\n".utf8), to: path, permissions: 0o600)
        } catch let error as AtomicFileError {
            throw .unwritable(path: path, reason: error.description)
        } catch {
            throw .unwritable(path: path, reason: IOErrorText.describe(error))
        }
    }
}
