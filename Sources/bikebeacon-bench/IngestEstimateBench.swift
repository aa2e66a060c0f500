import ArgumentParser
import Beacon
import Benchmarks
import BikebeaconAPI
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Server
import Synchronization

/// What the position estimate in each sighting's event (#44) costs the server at ingest, without the noise of
/// `bench-server --city`: two servers in this process, through their whole router (HummingbirdTesting's `.router`,
/// no sockets), each on its own SQLite file seeded alike, one with the estimate on ingest and one without
/// (`ServerOptions.estimatesOnIngest`). Both take the same batches of sightings on one injected clock, as the city
/// run's worst-case row sends them: random bikes from random sentinels, every sentinel heartbeating once a minute.
/// The batches alternate between the two in chunks, so drift of this host's speed falls on both alike; the
/// difference of their CPU per sighting is the estimate's cost.
struct IngestEstimateBench {
    struct Setup: Sendable {
        var sentinels = 100
        var bikes = 1_000
        /// Sightings a second of the injected clock, in batches of `batch` (each of a random bike, from a random sentinel).
        var rate = 100.0
        var batch = 10
        /// Seconds of the injected clock a level lasts: from the second level on, every bike's window is full and
        /// only the table grows.
        var levelSeconds = 300.0
        var levels = 3
        /// Batches each server takes before the other takes as many.
        var chunk = 50
        var seed: UInt64 = 44
    }

    struct Level: Sendable {
        /// One chunk's CPU seconds (user plus system) the POSTs of sightings took, each server.
        struct Chunk: Sendable {
            var withEstimate: Double
            var without: Double
            var sightings: Int
        }

        /// The injected clock's seconds since the first sighting, at the level's end.
        var upTo = 0.0
        /// Sightings of a bike in its 300 s window, on average, at the level's end.
        var perWindow = 0.0
        /// Paired: the spread of their differences says how far the level's difference can be trusted.
        var chunks: [Chunk] = []

        var withEstimate: Double { chunks.reduce(0) { $0 + $1.withEstimate } }
        var without: Double { chunks.reduce(0) { $0 + $1.without } }
        var sightings: Int { chunks.reduce(0) { $0 + $1.sightings } }

        /// Twice the standard error of the chunks' mean difference, CPU seconds a sighting (about a 95 % interval);
        /// nil with fewer than two chunks.
        var uncertainty: Double? {
            let differences = chunks.map { ($0.withEstimate - $0.without) / Double($0.sightings) }
            let n = Double(differences.count)
            guard n >= 2 else { return nil }
            let mean = differences.reduce(0, +) / n
            let variance = differences.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / (n - 1)
            return 2 * (variance / n).squareRoot()
        }
    }

    let setup: Setup

    func run(directory: URL) async throws -> [Level] {
        let clock = InjectedClock(start: 1_795_000_000_000)
        let logger = Self.logger
        return try await BenchDatabase.with("sqlite://" + directory.appendingPathComponent("on.sqlite").path, logger: logger, now: clock.now) { onDB in
            try await BenchDatabase.with("sqlite://" + directory.appendingPathComponent("off.sqlite").path, logger: logger, now: clock.now) { offDB in
                let on = try await Self.server(onDB, estimate: true, clock: clock), off = try await Self.server(offDB, estimate: false, clock: clock)
                return try await on.test(.router) { onClient in
                    try await off.test(.router) { offClient in
                        try await measure(on: Side(client: onClient, database: onDB), off: Side(client: offClient, database: offDB), clock: clock)
                    }
                }
            }
        }
    }

    private struct Side {
        let client: any TestClientProtocol
        let database: Database
    }

    private func measure(on: Side, off: Side, clock: InjectedClock) async throws -> [Level] {
        var random = SplitMix64(seed: setup.seed)
        // One make's UUID, each bike its own major.
        let make = UUID(uuid: (0xB1, 0x6E, 0xBE, 0xAC, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0, 0x44))
        let beacons = (0..<setup.bikes).map { BeaconID(uuid: make, major: UInt16($0), minor: 1) }
        var tokens: [[String]] = []
        for server in [on, off] {
            tokens.append(try await seed(server, beacons: beacons, now: clock.now))
        }
        let batchStep = Int64((Double(setup.batch) / setup.rate * 1000).rounded())
        let batchesPerLevel = Int((setup.levelSeconds * 1000 / Double(batchStep)).rounded())
        var levels: [Level] = []
        var nextHeartbeat = clock.now
        let start = clock.now
        for _ in 0..<setup.levels {
            var level = Level()
            var done = 0
            while done < batchesPerLevel {
                let count = min(setup.chunk, batchesPerLevel - done)
                // One chunk's batches, made once and sent to both.
                var chunk: [(time: Int64, sentinel: Int, body: ByteBuffer)] = []
                for index in 0..<count {
                    let time = clock.now + Int64(index) * batchStep
                    let sentinel = Int(random.next() % UInt64(setup.sentinels))
                    let items: [SightingItem] = (0..<setup.batch).map { _ in
                        Self.sighting(beacons[Int(random.next() % UInt64(beacons.count))], time: time, random: &random)
                    }
                    chunk.append((time, sentinel, ByteBuffer(bytes: try JSONEncoder().encode(SightingBatch(sightings: items)))))
                }
                let chunkEnd = clock.now + Int64(count) * batchStep
                // Each goes first in turn, so neither always finds the other's work in the caches.
                var cpu = [0.0, 0.0]
                for side in level.chunks.count % 2 == 0 ? [0, 1] : [1, 0] {
                    let server = side == 0 ? on : off
                    cpu[side] = try await Self.cpuSeconds {
                        for (time, sentinel, body) in chunk {
                            clock.set(time)
                            try await post(body, token: tokens[side][sentinel], to: server)
                        }
                    }
                }
                level.chunks.append(Level.Chunk(withEstimate: cpu[0], without: cpu[1], sightings: count * setup.batch))
                clock.set(chunkEnd)
                // Every sentinel's heartbeat once a minute, to both alike, outside the measured POSTs.
                while nextHeartbeat + 60_000 <= clock.now {
                    nextHeartbeat += 60_000
                    try await heartbeats(on, tokens: tokens[0])
                    try await heartbeats(off, tokens: tokens[1])
                }
                done += count
            }
            level.upTo = Double(clock.now - start) / 1000
            level.perWindow = setup.rate * min(level.upTo, 300) / Double(setup.bikes)
            levels.append(level)
        }
        return levels
    }

    /// Owners, each with one missing bike, and the sentinels (places as `city-seed` gives them); the sentinels' tokens.
    private func seed(_ server: Side, beacons: [BeaconID], now: Int64) async throws -> [String] {
        for (n, beacon) in beacons.enumerated() {
            let credentials = Credentials(email: "bench-\(n)@example.org", password: "benchmark password")
            _ = try await send(server, .post, "/v1/accounts", json: credentials, expect: .created)
            let session = try await send(server, .post, "/v1/sessions", json: LogIn(email: credentials.email, password: credentials.password),
                                         expect: .ok)
            let token = try JSONDecoder().decode(Token.self, from: Data(session.body.readableBytesView)).token
            let fields = BikeFields(name: "bike \(n)", make: "Brompton", model: "C Line", colour: "green", frameNumber: "BB\(n)",
                                    engineNumber: nil, notes: nil, beacon: beacon)
            let bike = try JSONDecoder().decode(Bike.self, from: Data(try await send(server, .post, "/v1/bikes", token: token, json: fields,
                                                                                    expect: .created).body.readableBytesView))
            _ = try await send(server, .post, "/v1/bikes/\(bike.id)/missing", token: token, json: MissingRequest(), expect: .ok)
        }
        let store = SentinelStore(database: server.database)
        var tokens: [String] = []
        for n in 1...setup.sentinels {
            let place = CitySeedCommand.place(n)
            tokens.append(try await store.add(name: "bench-city-\(n)", latitude: place.latitude, longitude: place.longitude, now: now).token)
        }
        try await heartbeats(server, tokens: tokens)
        return tokens
    }

    /// Each sentinel's heartbeat, as `bench-server --city` sends it (one-point calibrated, 0.4 s off the server's clock).
    private func heartbeats(_ server: Side, tokens: [String]) async throws {
        guard let heartbeat = HTTPField.Name(SentinelHeartbeat.headerName) else { throw ValidationError("no header named \(SentinelHeartbeat.headerName)") }
        for token in tokens {
            var headers = HTTPFields()
            headers[.authorization] = "Bearer \(token)"
            headers[heartbeat] = Self.heartbeat
            let response = try await server.client.execute(uri: "/v1/missing", method: .get, headers: headers, body: nil)
            guard response.status == .ok else { throw ValidationError("GET /v1/missing with a heartbeat answered \(response.status)") }
        }
    }

    private func post(_ body: ByteBuffer, token: String, to server: Side) async throws {
        var headers = HTTPFields()
        headers[.authorization] = "Bearer \(token)"
        headers[.contentType] = "application/json"
        let response = try await server.client.execute(uri: "/v1/sightings", method: .post, headers: headers, body: body)
        guard response.status == .ok else {
            throw ValidationError("POST /v1/sightings answered \(response.status): \(String(buffer: response.body).prefix(200))")
        }
    }

    private func send(_ server: Side, _ method: HTTPRequest.Method, _ uri: String, token: String? = nil, json: some Encodable,
                      expect: HTTPResponse.Status) async throws -> TestResponse {
        var headers = HTTPFields()
        if let token { headers[.authorization] = "Bearer \(token)" }
        headers[.contentType] = "application/json"
        let response = try await server.client.execute(uri: uri, method: method, headers: headers,
                                                       body: ByteBuffer(bytes: try JSONEncoder().encode(json)))
        guard response.status == expect else {
            throw ValidationError("\(method) \(uri) answered \(response.status): \(String(buffer: response.body).prefix(200))")
        }
        return response
    }

    private static func sighting(_ beacon: BeaconID, time: Int64, random: inout SplitMix64) -> SightingItem {
        let stamp = Timestamp.format(milliseconds: time)
        let rssi = -55 - Int(random.next() % 40)
        return SightingItem(id: UUID().uuidString, uuid: beacon.uuid.uuidString, major: Int(beacon.major), minor: Int(beacon.minor),
                            event: "arrived", time: stamp, firstSeen: stamp, lastSeen: stamp, rssi: rssi, distance: 1.5, zone: "near")
    }

    private static let logger: Logger = {
        var logger = Logger(label: "bikebeacon-bench-ingest-estimate")
        logger.logLevel = .warning
        return logger
    }()

    private static func server(_ database: Database, estimate: Bool, clock: InjectedClock) async throws -> some ApplicationProtocol {
        var options = ServerOptions(host: "127.0.0.1", port: 0, bcryptCost: 4,
                                    sentinelRateLimit: RateLimit(perSecond: 1_000_000_000, burst: 1_000_000_000), now: { clock.now })
        options.signupLimit = RateLimit(perSecond: 1_000_000, burst: 1_000_000)
        options.newTagHold = NewTagHold(hours: 0)
        options.estimatesOnIngest = estimate
        return try await BikebeaconServer.makeApplication(database: database, options: options, logger: logger)
    }

    static let heartbeat = #"{"version":"0.1.0","uptimeSeconds":3600,"backend":"dbus","adapterPresent":true,"adapterPowered":true,"scanning":true,"intervalSeconds":60,"reports":900,"iBeacons":3,"lastReportAgeSeconds":0.5,"missingInRange":0,"outboxDepth":0,"clockOffsetSeconds":0.4,"diskFreeBytes":10000000000,"diskTotalBytes":30000000000,"pathLoss":{"calibration":"onePoint","exponent":1.5,"nearFieldExponent":2}}"#

    /// This process's user plus system CPU seconds over `body`.
    private static func cpuSeconds(_ body: () async throws -> Void) async throws -> Double {
        let before = ProcessCPU.ownSeconds()
        try await body()
        return ProcessCPU.ownSeconds() - before
    }
}

/// The servers' clock: set by the bench, read by both servers.
final class InjectedClock: Sendable {
    private let milliseconds: Atomic<Int64>

    init(start: Int64) { milliseconds = Atomic(start) }

    var now: Int64 { milliseconds.load(ordering: .relaxed) }

    func set(_ value: Int64) { milliseconds.store(value, ordering: .relaxed) }
}
