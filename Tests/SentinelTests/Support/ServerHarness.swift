#if canImport(Glibc)
import Glibc
#endif
import AsyncHTTPClient
import Beacon
import Foundation
import LocalServer
import NIOCore
import NIOHTTP1
import Subprocesses
import TestSupport

/// The real `bikebeacon-server` as a child process on a loopback port with a SQLite file, and an
/// owner talking to it over HTTP. The server binds port 0 and the harness reads the port it got
/// from its log: a port chosen here and bound later by the server was once taken meanwhile by
/// another test's server, whose /healthz then answered for it (a full parallel run).
final class ServerHarness: @unchecked Sendable {
    /// The built server (beside this package's products), or `$BIKEBEACON_SERVER_BINARY`.
    static let binary: URL? = {
        if let override = ProcessInfo.processInfo.environment["BIKEBEACON_SERVER_BINARY"] { return URL(fileURLWithPath: override) }
        let built = Paths.executable("bikebeacon-server")
        return FileManager.default.isExecutableFile(atPath: built.path) ? built : nil
    }()

    static var isAvailable: Bool { binary != nil }

    /// The port the server listens on, from its first start (a restart binds it again); 0 before.
    private(set) var port = 0
    let database: String
    let extraArguments: [String]
    /// The server's log, whose tail a failed start shows.
    let log: URL
    private var process: ChildProcess?

    init(directory: URL, extraArguments: [String] = []) throws {
        log = directory.appendingPathComponent("server.log")
        database = "sqlite://" + directory.appendingPathComponent("server.sqlite").path
        self.extraArguments = extraArguments
    }

    var url: String { "http://127.0.0.1:\(port)" }

    /// Enrols a sentinel, at a place or roaming; returns its token (the last line the command prints).
    /// With `owner` (an account's e-mail) it is that owner's home sentinel.
    /// `replaying`: the sentinel replays a recorded capture, whose times are older than its enrolment now.
    func enrolSentinel(name: String, roaming: Bool = false, owner: String? = nil, replaying: Bool = true) async throws -> String {
        guard let binary = Self.binary else { throw HarnessError("no bikebeacon-server binary") }
        let place = roaming ? ["--roaming"] : ["--latitude", "52.3676", "--longitude", "4.9041"]
        let since = replaying ? ["--enrolled-at", LocalServer.replayEnrolment] : []
        let result = try await run(path: binary.path, ["sentinels", "add", "--name", name] + place + (owner.map { ["--owner", $0] } ?? [])
                                   + since + ["--database", database])
        let lines = result.stdout.split(separator: "\n")
        guard result.status == 0, let token = lines.last.map(String.init) else { throw HarnessError("sentinels add failed: \(result.stderr)") }
        return token
    }

    func start() async throws {
        guard let binary = Self.binary else { throw HarnessError("no bikebeacon-server binary") }
        // The scenarios mark bikes missing right after registering them: no hold on new tags (the server suite tests it).
        let logged = (try? FileManager.default.attributesOfItem(atPath: log.path)[.size] as? Int) ?? 0
        let process = try ChildProcess.spawn(binary.path, ["serve", "--host", "127.0.0.1", "--port", "\(port)", "--database", database,
                                                           "--bcrypt-cost", "4", "--new-tag-hold", "0"] + extraArguments,
                                             stdout: .discard, stderr: .file(log.path))
        self.process = process
        // The log's end, in the error: the test's folder, log included, is removed when the run ends.
        let tail = { (try? String(contentsOf: self.log, encoding: .utf8))?.split(separator: "\n").suffix(5).joined(separator: "\n") ?? "" }
        // 60 s: in a full parallel test run on two cores a debug server's start once took more than 20.
        let deadline = Date().addingTimeInterval(60)
        while true {
            if port == 0 { port = listeningPort(loggedSince: logged) ?? 0 }
            // A short timeout: the HTTP client retries a refused connection until its deadline.
            if port != 0, let (status, _) = try? await request(.GET, "/healthz", timeout: .milliseconds(500)), status == 200 { return }
            guard process.isRunning else {
                let status = process.wait()
                throw HarnessError("the server exited (status \(status)) before it answered /healthz; its log ends:\n\(tail())")
            }
            // The deadline is checked after the server is, not before: while CPU-bound tests hold every thread of the
            // cooperative pool, this loop may next wake past its deadline with the server long up (twice on 2026-12-01:
            // "logged no 'listening on…' within 60 s" above a log that ended with that very line).
            guard Date() < deadline else { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw HarnessError((port == 0 ? "the server logged no 'listening on 127.0.0.1:PORT' within 60 s, still running"
                                      : "the server did not answer /healthz on port \(port) within 60 s, still running") + "; its log ends:\n\(tail())")
    }

    /// The port in Hummingbird's "Server started and listening on 127.0.0.1:PORT", logged after byte `offset`.
    private func listeningPort(loggedSince offset: Int) -> Int? {
        guard let data = FileManager.default.contents(atPath: log.path), data.count > offset else { return nil }
        let text = String(decoding: data.dropFirst(offset), as: UTF8.self)
        guard let range = text.range(of: "listening on 127.0.0.1:") else { return nil }
        return Int(text[range.upperBound...].prefix { $0.isNumber })
    }

    /// Kills the server outright (SIGKILL): the harshest outage, and no wait for the shared
    /// HTTP client's idle connections that a graceful shutdown would drain.
    func stop() {
        guard let process else { return }
        process.send(SIGKILL)
        process.wait()
        self.process = nil
    }

    /// One HTTP request; returns the status and body.
    func request(_ method: HTTPMethod, _ path: String, token: String? = nil, json: Any? = nil,
                 timeout: TimeAmount = .seconds(10)) async throws -> (Int, Data) {
        var request = HTTPClientRequest(url: url + path)
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json)))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: timeout)
        let body = try await response.body.collect(upTo: 16 << 20)
        return (Int(response.status.code), Data(body.readableBytesView))
    }

    /// Creates an owner with one bike per beacon, all reported missing; returns the owner token and bike ids.
    func ownerWithMissingBikes(_ beacons: [BeaconID], markMissing: Bool = true) async throws -> (token: String, bikes: [String]) {
        let credentials = ["email": "owner@example.org", "password": "correct horse battery staple"]
        _ = try await request(.POST, "/v1/accounts", json: credentials)
        let (status, body) = try await request(.POST, "/v1/sessions", json: credentials)
        guard status == 200, let token = (try JSONSerialization.jsonObject(with: body) as? [String: Any])?["token"] as? String else {
            throw HarnessError("login failed: \(status) \(String(decoding: body, as: UTF8.self))")
        }
        var bikes: [String] = []
        for (index, beacon) in beacons.enumerated() {
            let bike: [String: Any] = [
                "name": "bike \(index)", "make": "Gazelle", "model": "Ultimate", "colour": "green",
                "beacon": ["uuid": beacon.uuid.uuidString, "major": Int(beacon.major), "minor": Int(beacon.minor)],
            ]
            let (created, answer) = try await request(.POST, "/v1/bikes", token: token, json: bike)
            guard created == 201, let id = (try JSONSerialization.jsonObject(with: answer) as? [String: Any])?["id"] as? String else {
                throw HarnessError("creating a bike failed: \(created) \(String(decoding: answer, as: UTF8.self))")
            }
            if markMissing {
                let (marked, _) = try await request(.POST, "/v1/bikes/\(id)/missing", token: token, json: [String: Any]())
                guard marked == 200 else { throw HarnessError("marking missing failed: \(marked)") }
            }
            bikes.append(id)
        }
        return (token, bikes)
    }

    /// Every sighting the owner sees for these bikes, as (clientId, beacon, event, time).
    func sightings(owner: String, bikes: [String]) async throws -> [ServerSighting] {
        var all: [ServerSighting] = []
        for bike in bikes {
            let (status, body) = try await request(.GET, "/v1/bikes/\(bike)/sightings?limit=500", token: owner)
            guard status == 200 else { throw HarnessError("listing sightings failed: \(status)") }
            all += try JSONDecoder().decode(ServerSightingPage.self, from: body).sightings
        }
        return all
    }
}

struct ServerSightingPage: Decodable { var sightings: [ServerSighting] }

struct ServerSighting: Decodable, Hashable {
    struct Beacon: Decodable, Hashable { var uuid: String; var major: Int; var minor: Int }
    var clientId: String
    var beacon: Beacon
    var event: String
    var time: String
    /// A roaming sentinel's: `gps` with a position, `none` without.
    var fix: String?
    var latitude: Double?
}

