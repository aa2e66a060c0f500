import Beacon
import BikebeaconAPI
import CFuzzDriver
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded
import Server

/// libFuzzer harness: any bytes as one HTTP request to the server, handled in process by the
/// application's responder (router and middleware; no sockets) on a migrated SQLite database. A
/// refusal (4xx) is the right answer to bad input; a 5xx, an error no middleware turned into a
/// response, or a crash is a finding. (HummingbirdTesting's `.router` client would do the same but
/// leaks a test channel per request, which would hide a leak of ours.)
///
/// Input: the first byte picks the caller (anonymous, an owner's session, a sentinel's token); then
/// a line `METHOD TARGET` and the body. `{bike}` in the target stands for the owner's bike's id.
/// Requests the server handles by design without end (the `/v1/events` stream) are skipped.
struct FuzzRequest {
    enum Caller: CaseIterable { case anonymous, owner, sentinel }

    var caller: Caller
    var method: HTTPRequest.Method
    var target: String
    var body: [UInt8]

    init?(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let first = bytes.first else { return nil }
        caller = Caller.allCases[Int(first) % Caller.allCases.count]
        let rest = bytes.dropFirst()
        let lineEnd = rest.firstIndex(of: UInt8(ascii: "\n")) ?? rest.endIndex
        body = Array(rest[lineEnd...].dropFirst())
        let line = rest[rest.startIndex..<lineEnd]
        // What an HTTP/1.1 parser lets through to the router: a token, one space, a visible-ASCII target.
        guard let space = line.firstIndex(of: UInt8(ascii: " ")),
              let method = HTTPRequest.Method(String(decoding: line[line.startIndex..<space], as: UTF8.self)) else { return nil }
        let target = line[(space + 1)...]
        guard target.first == UInt8(ascii: "/"), target.allSatisfy({ (0x21...0x7e).contains($0) }) else { return nil }
        self.method = method
        self.target = String(decoding: target, as: UTF8.self)
        let path = self.target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
        if path.split(separator: "/") == ["v1", "events"] { return nil }
    }
}

/// The application's responder, called as the HTTP server calls it, with one in-memory channel.
struct InProcessServer: Sendable {
    let respond: @Sendable (Request) async throws -> Response

    init<App: ApplicationProtocol>(_ app: App) async throws {
        let responder = try await app.responder
        let channel = NIOAsyncTestingChannel()
        let logger = app.logger
        respond = { request in
            try await responder.respond(to: request, context: App.Context(source: .init(channel: channel, logger: logger)))
        }
    }

    /// Status and body; an error that escapes the responder is answered as the HTTP server answers it.
    func execute(uri: String, method: HTTPRequest.Method, headers: HTTPFields = [:], body: [UInt8] = []) async throws
        -> (status: HTTPResponse.Status, body: ByteBuffer)
    {
        var headers = headers
        if !body.isEmpty { headers[.contentLength] = "\(body.count)" }
        let request = Request(head: HTTPRequest(method: method, scheme: "http", authority: "localhost", path: uri, headerFields: headers),
                              body: RequestBody(buffer: ByteBuffer(bytes: body)))
        let response: Response
        do {
            response = try await respond(request)
        } catch let error as any HTTPResponseError {
            return (error.status, ByteBuffer())
        }
        let collected = CollectedBody()
        try await response.body.write(BodyCollector(into: collected))
        return (response.status, collected.buffer)
    }
}

/// A response body, written by one responder task and read after it finished.
final class CollectedBody: @unchecked Sendable {
    var buffer = ByteBuffer()
}

/// Collects a response body.
struct BodyCollector: ResponseBodyWriter {
    let into: CollectedBody

    func write(_ buffer: ByteBuffer) async throws {
        into.buffer.writeImmutableBuffer(buffer)
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
}

/// Who the requests speak as, made through the API itself; made again when a request ended them.
struct Identities {
    var ownerToken: String
    var sentinelToken: String
    var bikeID: String

    static func make(_ client: InProcessServer, database: Database, options: ServerOptions, serial: Int) async throws -> Identities {
        let email = "fuzz-\(serial)@example.com", password = "correct horse battery"
        let json: HTTPFields = [.contentType: "application/json"]
        let account = Array(try JSONEncoder().encode(["email": email, "password": password]))
        var signUp = json
        signUp[HTTPField.Name("X-Forwarded-For")!] = "10.\(serial >> 16 & 255).\(serial >> 8 & 255).\(serial & 255)"
        _ = try await client.execute(uri: "/v1/accounts", method: .post, headers: signUp, body: account)
        let login = try await client.execute(uri: "/v1/sessions", method: .post, headers: json, body: account)
        let token = try JSONDecoder().decode(Token.self, from: Data(login.body.readableBytesView)).token
        var owner = json
        owner[.authorization] = "Bearer \(token)"
        let fields = BikeFields(name: "Commuter", make: "Brompton", colour: "racing green", frameNumber: "BR123",
                                beacon: BeaconIDs.fuzz(serial))
        let created = try await client.execute(uri: "/v1/bikes", method: .post, headers: owner,
                                               body: Array(try JSONEncoder().encode(fields)))
        let bike = try JSONDecoder().decode(Bike.self, from: Data(created.body.readableBytesView))
        _ = try await client.execute(uri: "/v1/bikes/\(bike.id)/missing", method: .post, headers: owner)
        let (_, sentinelToken) = try await SentinelStore(database: database)
            .add(name: "fuzz-\(serial)", latitude: 52.09, longitude: 5.12, now: options.now())
        return Identities(ownerToken: token, sentinelToken: sentinelToken, bikeID: bike.id)
    }
}

/// The seeds' beacon (the design notes' third vector), with a minor per identity so bikes never clash.
enum BeaconIDs {
    static func fuzz(_ serial: Int) -> BeaconID {
        BeaconID(uuid: UUID(uuidString: "B5B182C7-EAB1-4988-AA99-B5C1517008D9") ?? UUID(), major: 1, minor: UInt16(truncatingIfNeeded: 25626 + serial))
    }
}

/// The state libFuzzer's callback reaches: it is called on libFuzzer's thread, one input at a time.
final class Fuzzing: @unchecked Sendable {
    nonisolated(unsafe) static var shared: Fuzzing?

    let client: InProcessServer
    let database: Database
    let options: ServerOptions
    var identities: Identities
    var serial = 0

    init(client: InProcessServer, database: Database, options: ServerOptions) async throws {
        self.client = client
        self.database = database
        self.options = options
        identities = try await Identities.make(client, database: database, options: options, serial: 0)
    }

    func send(_ request: FuzzRequest) async throws -> (status: HTTPResponse.Status, body: ByteBuffer) {
        var headers: HTTPFields = [:]
        switch request.caller {
        case .anonymous: break
        case .owner: headers[.authorization] = "Bearer \(identities.ownerToken)"
        case .sentinel: headers[.authorization] = "Bearer \(identities.sentinelToken)"
        }
        if !request.body.isEmpty { headers[.contentType] = "application/json" }
        let target = request.target.replacingOccurrences(of: "{bike}", with: identities.bikeID)
        let response = try await client.execute(uri: target, method: request.method, headers: headers, body: request.body)
        // A delete or a logout may have ended the harness's account, session or bike: start afresh.
        if request.method == .delete, response.status.kind == .successful {
            serial += 1
            identities = try await Identities.make(client, database: database, options: options, serial: serial)
        }
        return response
    }
}

/// Outcome of one request, handed from the task that ran it to libFuzzer's thread.
final class Outcome: @unchecked Sendable {
    var result: Result<(status: HTTPResponse.Status, body: ByteBuffer), any Error>?
}

private func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let fuzzing = Fuzzing.shared, let request = FuzzRequest(UnsafeBufferPointer(start: data, count: size)) else { return -1 }
    let outcome = Outcome()
    let done = DispatchSemaphore(value: 0)
    Task {
        do {
            outcome.result = .success(try await fuzzing.send(request))
        } catch {
            outcome.result = .failure(error)
        }
        done.signal()
    }
    done.wait()
    let described = "\(request.method) \(request.target) as \(request.caller), body \(String(decoding: request.body, as: UTF8.self).debugDescription)"
    switch outcome.result {
    case let .success(response)?:
        precondition(response.status.code < 500,
                     "server answered \(response.status) to \(described): \(String(buffer: response.body))")
    case let .failure(error)?:
        preconditionFailure("the request \(described) threw \(error)")
    case nil:
        preconditionFailure("no outcome for \(described)")
    }
    return 0
}

var logger = Logger(label: "fuzz-server")
logger.logLevel = .critical
let state = ProcessInfo.processInfo.environment["BIKEBEACON_FUZZ_STATE"] ?? FileManager.default.temporaryDirectory.path
let path = "\(state)/server-requests-\(getpid()).sqlite"
var options = ServerOptions(host: "127.0.0.1", port: 0, bcryptCost: 4, sentinelRateLimit: RateLimit(perSecond: 1_000_000, burst: 1_000_000))
// The fuzzed requests carry no X-Forwarded-For, so their sign-ups share one client's default allowance: the database
// stays small and the requests fast. The harness's own sign-ups each name a client of their own, believed as a proxy's.
options.trustProxy = true
// Identities mark a bike missing right after registering it.
options.newTagHold = NewTagHold(hours: 0)
let database = try await BikebeaconServer.openDatabase(.sqlite(path: path), logger: logger, now: options.now())
let app = try await BikebeaconServer.makeApplication(database: database, options: options, logger: logger)
Fuzzing.shared = try await Fuzzing(client: InProcessServer(app), database: database, options: options)
// libFuzzer runs on its own thread; each input's request runs as a task the callback waits for.
let status = await withCheckedContinuation { continuation in
    Thread { continuation.resume(returning: bikebeacon_fuzz_run(CommandLine.argc, CommandLine.unsafeArgv, testOneInput)) }.start()
}
exit(status)
