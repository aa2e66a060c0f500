import AsyncHTTPClient
import BikebeaconAPI
import Durable
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import SQLKit
import Testing
import Beacon
@testable import Server

/// Which database a scenario runs on. PostgreSQL comes from `scripts/test`, which starts a
/// throwaway server on loopback and exports BIKEBEACON_TEST_POSTGRES_URL.
enum Backend: String, Sendable {
    case sqlite, postgres

    static let postgresURL = ProcessInfo.processInfo.environment["BIKEBEACON_TEST_POSTGRES_URL"]
    static let postgresSkipReason: Comment =
        "BIKEBEACON_TEST_POSTGRES_URL is unset: the PostgreSQL half of the server suite is skipped; run scripts/test to start a throwaway PostgreSQL on loopback"
}

/// A fresh, migrated database (a temp SQLite file, or a new PostgreSQL database) and a server on it.
struct Harness: Sendable {
    let database: Database
    let options: ServerOptions
    let cleanup: @Sendable () async -> Void

    static let logger: Logger = {
        var logger = Logger(label: "server-tests")
        logger.logLevel = .critical
        return logger
    }()

    static func testOptions(_ change: (inout ServerOptions) -> Void = { _ in }) -> ServerOptions {
        var options = ServerOptions(host: "127.0.0.1", port: 0, bcryptCost: 4,
                                    sentinelRateLimit: RateLimit(perSecond: 1000, burst: 1000),
                                    webhookBackoff: Backoff(initial: 0.05, maximum: 0.2, maxAttempts: 5, jitter: 0))
        options.signupLimit = RateLimit(perSecond: 1000, burst: 1000)
        // Scenarios mark bikes missing right after registering them; the hold on new tags has its own (`NewTagHoldScenarios`).
        options.newTagHold = NewTagHold(hours: 0)
        // As the packaged unit: a proxy on loopback is believed (a `.live` client connects from there).
        options.trustedProxies = .loopback
        // A replica's live client waits, connected, while the other sets a scenario up; in CI's parallel suite that
        // passed the 30 s default and the server closed it ("I/O on closed channel"). `ListenerScenarios` sets its own.
        options.idleTimeout = .seconds(600)
        change(&options)
        return options
    }

    static func make(_ backend: Backend, options: ServerOptions = testOptions()) async throws -> Harness {
        switch backend {
        case .sqlite:
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("bikebeacon-test-\(UUID().uuidString).sqlite").path
            let database = try await BikebeaconServer.openDatabase(.sqlite(path: path), logger: logger, now: options.now())
            return Harness(database: database, options: options) {
                await database.shutdown()
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            }
        case .postgres:
            let admin = try #require(Backend.postgresURL, Backend.postgresSkipReason)
            let name = "bikebeacon_test_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))"
            let adminDB = try Database(url: .postgres(url: admin), logger: logger, maxConnections: 2)
            // A database name cannot be a bind parameter; this one is generated here from a UUID, never from input.
            try await adminDB.withSession { try await $0.raw("CREATE DATABASE \(unsafeRaw: name)").run() }
            let url = try Self.replacingDatabase(in: admin, with: name)
            let database = try await BikebeaconServer.openDatabase(.postgres(url: url), logger: logger, now: options.now())
            return Harness(database: database, options: options) {
                await database.shutdown()
                try? await adminDB.withSession { try await $0.raw("DROP DATABASE IF EXISTS \(unsafeRaw: name)").run() }
                await adminDB.shutdown()
            }
        }
    }

    static func replacingDatabase(in url: String, with name: String) throws -> String {
        let withoutQuery = url.split(separator: "?", maxSplits: 1)
        let base = String(withoutQuery[0])
        let slash = try #require(base.range(of: "/", options: .backwards), "postgres URL without a database path")
        let rebuilt = base[..<slash.lowerBound] + "/" + name
        return withoutQuery.count == 2 ? rebuilt + "?" + withoutQuery[1] : String(rebuilt)
    }

    /// Runs `body` against a server on this database; `.live` when the test needs a real socket.
    /// The database is removed afterwards unless `keepDatabase` (for a second server on the same data, as after a restart).
    func run<R: Sendable>(_ setup: TestingSetup = .router, metrics: ServerMetrics = ServerMetrics(), keepDatabase: Bool = false,
                          _ body: @Sendable (Client) async throws -> R) async throws -> R {
        do {
            let app = try await BikebeaconServer.makeApplication(database: database, options: options, metrics: metrics, logger: Self.logger)
            let result = try await app.test(setup) { try await body(Client(inner: $0)) }
            if !keepDatabase { await cleanup() }
            return result
        } catch {
            await cleanup()
            throw error
        }
    }

    /// What Prometheus reads on the metrics listener (`OpsRoutes.metricsRouter`) of a server run with `metrics`.
    func scrape(_ metrics: ServerMetrics) async throws -> String {
        let health = SentinelHealthStore(database: database, thresholds: options.sentinelThresholds)
        let router = OpsRoutes.metricsRouter(metrics) { await OpsRoutes.countSentinels(health, into: metrics, logger: Self.logger) }
        return try await Application(router: router).test(.router) { client in
            let response = try await client.execute(uri: "/metrics", method: .get)
            #expect(response.status == .ok)
            return String(buffer: response.body)
        }
    }

    /// The rate limiter's bucket keys, sorted: which clients and sentinels it is holding a row for.
    func rateBucketKeys() async throws -> [String] {
        try await database.withSession { db in
            try await db.raw("SELECT key FROM rate_buckets ORDER BY key").all().map { try $0.decode(column: "key", as: String.self) }
        }
    }

    /// A sentinel enrolled before the fixtures' sightings (`Fixture.enrolled`), so the server takes them.
    func sentinel(_ name: String = "garage", latitude: Double = 51.5, longitude: Double = -0.12) async throws -> (Sentinel, String) {
        try await SentinelStore(database: database).add(name: name, latitude: latitude, longitude: longitude,
                                                        now: min(options.now(), Fixture.enrolled))
    }
}

/// A thin JSON client over HummingbirdTesting's client.
struct Client: Sendable {
    let inner: any TestClientProtocol

    var port: Int? { inner.port }

    @discardableResult
    func send(_ method: HTTPRequest.Method, _ uri: String, token: String? = nil, json: (any Encodable & Sendable)? = nil,
              raw: String? = nil, headers extra: HTTPFields = [:]) async throws -> TestResponse {
        var headers = extra
        if let token { headers[.authorization] = "Bearer \(token)" }
        var body: ByteBuffer?
        if let json {
            body = ByteBuffer(bytes: try JSONEncoder().encode(json))
            headers[.contentType] = "application/json"
        } else if let raw {
            body = ByteBuffer(string: raw)
            headers[.contentType] = "application/json"
        }
        return try await inner.execute(uri: uri, method: method, headers: headers, body: body)
    }

    func decode<T: Decodable>(_ type: T.Type, _ response: TestResponse) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(response.body.readableBytesView))
    }

    /// Signs up and logs in; returns the session token.
    func owner(_ email: String, password: String = "correct horse battery") async throws -> String {
        let created = try await send(.post, "/v1/accounts", json: ["email": email, "password": password])
        #expect(created.status == .created)
        let session = try await send(.post, "/v1/sessions", json: ["email": email, "password": password])
        #expect(session.status == .ok)
        return try decode(Token.self, session).token
    }

    func bike(_ token: String, name: String = "Commuter", beacon: String = Fixture.beaconA, major: Int = 1, minor: Int = 25626) async throws -> Bike {
        let response = try await send(.post, "/v1/bikes", token: token, json: BikeFields(
            name: name, make: "Brompton", model: "C Line", colour: "racing green", frameNumber: "BR123", engineNumber: nil,
            notes: "bell on the left", beacon: BeaconID(uuid: try #require(UUID(uuidString: beacon)), major: UInt16(major), minor: UInt16(minor))))
        #expect(response.status == .created, "\(String(buffer: response.body))")
        return try decode(Bike.self, response)
    }
}

/// Two claims of one due job in a row, as two replicas would make them. The server's own delivery worker runs beside a
/// scenario on the same injected clock (it wakes for a failing push's retries) and may claim first, so at most one of
/// the two wins and never the second (the second losing leaves at most the first); that the job went out once, the
/// scenario checks on what was queued.
func expectOneClaimAtMost(_ claims: [Bool], sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(claims.count == 2 && claims[1] == false, "\(claims)", sourceLocation: sourceLocation)
}

func expectError(_ response: TestResponse, _ status: HTTPResponse.Status, _ code: String? = nil,
                 sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(response.status == status, "\(String(buffer: response.body))", sourceLocation: sourceLocation)
    let body = try? JSONDecoder().decode(ErrorBody.self, from: Data(response.body.readableBytesView))
    #expect(body != nil, "error body is not {error, message}: \(String(buffer: response.body))", sourceLocation: sourceLocation)
    if let code { #expect(body?.error == code, sourceLocation: sourceLocation) }
    #expect(response.headers[.contentType]?.hasPrefix("application/json") == true, sourceLocation: sourceLocation)
}

/// Opens the owner's event stream and returns once the server has subscribed it (its first
/// comment, written after the stream's start is fixed), so an event posted next cannot fall before
/// it. The task reads until `done`, and returns what came so far when cancelled.
func readEvents(port: Int, token: String, until done: @escaping @Sendable (String) -> Bool) async -> Task<String, any Error> {
    let (connected, announce) = AsyncStream<Void>.makeStream()
    let task = Task {
        defer { announce.finish() }
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/events")
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        #expect(response.status.code == 200)
        #expect(response.headers.first(name: "Content-Type") == "text/event-stream")
        var text = ""
        do {
            for try await chunk in response.body {
                text += String(buffer: chunk)
                if text.hasPrefix(": connected\n\n") { announce.yield() }
                if done(text) { break }
            }
        } catch where Task.isCancelled {
            return text
        }
        return text
    }
    for await _ in connected { break }
    return task
}

/// The stream has delivered a whole sighting event.
@Sendable func holdsASighting(_ text: String) -> Bool { text.contains("event: sighting") && text.hasSuffix("\n\n") }

/// Real beacon identities from the design notes' vectors (decoded from captured advertisements).
enum Fixture {
    static let beaconA = "B5B182C7-EAB1-4988-AA99-B5C1517008D9"
    static let beaconB = "426C7565-4368-6172-6D42-6561636F6E73"
    static let beaconC = "494E5445-4C4C-495F-524F-434B535F4857"
    /// When the tests' sentinels count as enrolled: before `sighting`'s default time.
    static let enrolled: Int64 = 1_793_491_200_000 // 2026-11-01T00:00:00Z
    /// A server clock after the fixtures' sightings (2026-11-21), which it would refuse as ahead of it otherwise.
    static let afterSightings: Int64 = 1_795_392_000_000 // 2026-11-23T00:00:00Z

    static func sighting(id: String = UUID().uuidString, uuid: String = beaconA, major: Int = 1, minor: Int = 25626,
                         event: String = "arrived", time: String = "2026-11-21T10:00:00Z", rssi: Int = -67,
                         distance: Double? = 2.5, zone: String = "near") -> SightingItem {
        SightingItem(id: id, uuid: uuid, major: major, minor: minor, event: event, time: time,
                     firstSeen: time, lastSeen: time, rssi: rssi, distance: distance, zone: zone)
    }

    typealias Batch = SightingBatch<SightingItem>
}
