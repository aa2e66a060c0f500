#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ServerClient
import Subprocesses
import Synchronization

/// A throwaway `bikebeacon-server` on a free loopback port, for the demo (SQLite in a temp dir) and
/// the benchmarks (replicas on one database). A child process rather than linking the server into
/// `bikebeacon`, so a sentinel on a Pi does not carry the server's code.
public final class LocalServer: Sendable {
    public let binary: String
    public let database: String
    private let arguments: [String]
    /// Drawn when the server starts rather than when it is made, so the sentinels enrolled in between
    /// leave another process no time to take it.
    private let port = Mutex(0)
    private let child = Mutex<ChildProcess?>(nil)
    private let log: URL

    /// Finds `bikebeacon-server` beside this executable, where `swift build` puts it.
    public static func locateBinary() throws(LocalServerError) -> String {
        let me = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
        let path = me.deletingLastPathComponent().appendingPathComponent("bikebeacon-server").path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw LocalServerError("bikebeacon-server is not beside \(me.lastPathComponent) (\(path)); build both with ./scripts/run or `swift build`")
        }
        return path
    }

    /// Enrols a sentinel in the database and returns its token (the last line the server prints).
    /// `onCoverageMap`: its host agreed to the owners' coverage map, so owners' coverage names it (#43).
    public static func enrolSentinel(binary: String, database: String, name: String, latitude: Double, longitude: Double,
                                     onCoverageMap: Bool = false) throws -> String {
        try enrol(binary: binary, ["--name", name, "--latitude", String(latitude), "--longitude", String(longitude), "--database", database]
            + (onCoverageMap ? ["--on-coverage-map"] : []))
    }

    /// Enrols a roaming sentinel (no place of its own: its sightings carry its fix) and returns its token.
    public static func enrolRoamingSentinel(binary: String, database: String, name: String) throws -> String {
        try enrol(binary: binary, ["--name", name, "--roaming", "--database", database])
    }

    /// What the demo's sentinels replay was recorded before they were enrolled: they count as enrolled
    /// from here, or the server would refuse every sighting as dated before its sentinel existed.
    public static let replayEnrolment = "2000-01-01T00:00:00Z"

    private static func enrol(binary: String, _ arguments: [String]) throws -> String {
        let output = try runToEnd(binary, ["sentinels", "add", "--enrolled-at", replayEnrolment] + arguments)
        guard let token = output.split(separator: "\n").last.map(String.init), !token.isEmpty else {
            throw LocalServerError("bikebeacon-server sentinels add printed no token")
        }
        return token
    }

    /// `database` defaults to `demo.sqlite` in `directory`, where the log (`name`.log) goes too;
    /// `options` are added to `serve`'s.
    public init(binary: String, directory: URL, database: String? = nil, name: String = "server", options: [String] = []) throws {
        self.binary = binary
        self.database = database ?? "sqlite://" + directory.appendingPathComponent("demo.sqlite").path
        log = directory.appendingPathComponent(name + ".log")
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else { throw LocalServerError("cannot create \(log.path)") }
        // bcrypt cost 4: the demo's one password need not cost a second of the newcomer's time.
        arguments = ["serve", "--database", self.database, "--bcrypt-cost", "4"] + options
    }

    /// Where the server listens, once started.
    public var baseURL: String { "http://127.0.0.1:\(port.withLock { $0 })" }

    public func start() async throws {
        let chosen: Int
        do { chosen = try LoopbackPort.free() } catch { throw LocalServerError(error.description) }
        port.withLock { $0 = chosen }
        let process = try ChildProcess.spawn(binary, arguments + ["--port", String(chosen)], stdout: .file(log.path), stderr: .file(log.path))
        child.withLock { $0 = process }
        let anonymous = ServerConnection(baseURL: baseURL, token: "")
        for _ in 0..<100 {
            if let answer = try? await anonymous.send(.GET, "/healthz"), answer.status == .ok { return }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        stop()
        let tail = (try? String(contentsOf: log, encoding: .utf8))?.split(separator: "\n").suffix(5).joined(separator: "\n") ?? ""
        throw LocalServerError("bikebeacon-server did not come up on \(baseURL); its log (\(log.path)) ends:\n\(tail)")
    }

    /// The child's process id, once started.
    public var processIdentifier: Int32 { child.withLock { $0?.pid ?? 0 } }

    public func stop() {
        guard let process = child.withLock({ $0 }), process.isRunning else { return }
        process.terminate()
        process.wait()
    }

    private static func runToEnd(_ binary: String, _ arguments: [String]) throws -> String {
        let child = try ChildProcess.spawn(binary, arguments, stdout: .pipe, stderr: .discard)
        let output = child.readOutputToEnd()
        let status = child.wait()
        guard status == 0 else { throw LocalServerError("bikebeacon-server \(arguments.prefix(2).joined(separator: " ")) failed (exit \(status))") }
        return String(decoding: output, as: UTF8.self)
    }
}

/// Why the local server could not be found, started or used; the text says what to do.
public struct LocalServerError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
