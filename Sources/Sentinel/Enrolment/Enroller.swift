#if canImport(Glibc)
import Glibc
#endif
import BikebeaconAPI
import Durable
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore
import ServerClient

/// `bikebeacon enroll`: the steps in an order that leaves nothing half-done. Everything that can refuse
/// without the server (the target, an existing config, a directory it cannot write, a silent radio)
/// refuses before the code is spent; the config is written atomically only once the token is in hand.
/// The radio and the unit are I/O at the edge, handed in.
public struct Enroller: Sendable {
    public var configPath: String
    public var replace = false
    public var force = false
    public var backend: SentinelConfiguration.Backend = .dbus
    public var adapter: String?
    /// BLE reports heard in `EnrolmentPlan.radioCheckSeconds`; nil skips the check.
    public var radioCheck: (@Sendable () async throws -> Int)?
    /// Enables and starts the unit; nil leaves it.
    public var startUnit: (@Sendable () async throws -> Void)?
    public var say: @Sendable (String) -> Void

    public init(configPath: String, say: @escaping @Sendable (String) -> Void) {
        self.configPath = configPath
        self.say = say
    }

    public func run(_ target: EnrolmentTarget) async throws(EnrolmentError) {
        try EnrolmentPlan.mayWrite(EnrolmentPlan.classify(existing: try? String(contentsOfFile: configPath, encoding: .utf8)),
                                   replace: replace, path: configPath)
        try checkWritable()
        if let radioCheck {
            say("listening for Bluetooth LE for \(EnrolmentPlan.radioCheckSeconds) s …")
            var heard: Int?
            var failure: String?
            do { heard = try await radioCheck() } catch { failure = "\(error)" }
            say(try EnrolmentPlan.radio(reports: heard, failure: failure, force: force))
        }
        say("exchanging the code at \(target.serverURL) …")
        let enrolment = try await exchange(target)
        let text = EnrolmentPlan.configText(enrolment, serverURL: target.serverURL, backend: backend, adapter: adapter)
        do {
            try SentinelConfiguration.parse(yaml: text, environment: [:]).validate()
        } catch {
            throw .badAnswer("the config it makes does not check: \(error)")
        }
        do {
            // Read by the service's group only: the file holds the token.
            try AtomicFile.write(Data(text.utf8), to: configPath, permissions: 0o640, group: Self.serviceGroup())
        } catch {
            throw .cannotWrite("\(error); the code was used: the operator issues a new one with `bikebeacon-server sentinels rotate \(enrolment.name)`")
        }
        let place = enrolment.place.map { "at \($0.latitude), \($0.longitude)" } ?? "roaming"
        say("enrolled as '\(enrolment.name)' (\(place)) on \(target.serverURL); wrote \(configPath)")
        for line in EnrolmentPlan.calibration { say(line) }
        guard let startUnit else {
            say("not started (--no-start): sudo systemctl enable --now bikebeacon-sentinel")
            return
        }
        do { try await startUnit() } catch { throw .unitNotStarted("\(error)") }
        say("started bikebeacon-sentinel; follow it with `journalctl -u bikebeacon-sentinel -f`, check it with `bikebeacon status`")
    }

    /// The group the packaged service runs as, when this system has it.
    static func serviceGroup() -> gid_t? { getgrnam("bikebeacon").map { $0.pointee.gr_gid } }

    /// The config's directory must exist and be writable: else the code would be spent for nothing.
    func checkWritable() throws(EnrolmentError) {
        let directory = configPath.lastIndex(of: "/").map { $0 == configPath.startIndex ? "/" : String(configPath[..<$0]) } ?? "."
        var info = stat()
        guard stat(directory, &info) == 0, info.st_mode & 0o170000 == 0o040000 else {
            throw .cannotWrite("\(directory) does not exist: install the bikebeacon-sentinel package first, or give --config a path in an existing directory; the code was not used")
        }
        guard access(directory, W_OK) == 0 else {
            throw .cannotWrite("cannot write to \(directory): run `sudo bikebeacon enroll …`; the code was not used")
        }
    }

    func exchange(_ target: EnrolmentTarget) async throws(EnrolmentError) -> SentinelEnrolment {
        let connection = ServerConnection(baseURL: target.serverURL, token: "", timeout: .seconds(15))
        let answer: (status: UInt, body: Data)
        do {
            let body = try JSONEncoder().encode(EnrolmentRequest(code: target.code))
            let response = try await connection.send(.POST, "/v1/sentinel/enrol", json: body)
            answer = (response.status.code, Data(response.body.readableBytesView))
        } catch {
            throw .unreachable(server: target.serverURL, reason: "\(error)")
        }
        return try EnrolmentPlan.answer(status: answer.status, body: answer.body)
    }
}
