import ArgumentParser
import AsyncHTTPClient
import Beacon
import Benchmarks
import BikebeaconAPI
import Foundation
import LocalServer
import NIOCore
import NIOHTTP1
import Owners
import ServerClient

/// Pushed events, end to end through real server processes: a sighting POSTed to replica A
/// until its event arrives on replica B's `/v1/events` stream (two processes on one PostgreSQL;
/// one process on SQLite), and the CPU an idle server spends holding open streams.
struct EventsBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Sighting POST on replica A → event on replica B's /v1/events (p50/p99), and the idle CPU of 100 open streams.")

    @Option(help: "postgres://… (two replicas on it) or sqlite:///path (one server; default: a temp file).")
    var database: String?

    @Option(help: "Sightings posted, one at a time, each waiting for its event.")
    var events = 300

    @Option(help: "Open streams for the idle measurement.")
    var streams = 100

    @Option(help: "Seconds each idle CPU measurement lasts.")
    var idleSeconds = 10.0

    func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bikebeacon-bench-events-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = database ?? "sqlite://" + directory.appendingPathComponent("events.sqlite").path
        let postgres = url.hasPrefix("postgres")
        let binary = try LocalServer.locateBinary()
        let sentinel = try LocalServer.enrolSentinel(binary: binary, database: url, name: "bench-\(UUID().uuidString.prefix(8))",
                                                     latitude: 52.09, longitude: 5.12)
        let replica = { (name: String) in
            try LocalServer(binary: binary, directory: directory, database: url, name: name, options: ["--sentinel-rate", "100000", "--new-tag-hold", "0"])
        }
        let a = try replica("a")
        try await a.start()
        defer { a.stop() }
        let b = postgres ? try replica("b") : a
        if postgres { try await b.start() }
        defer { if postgres { b.stop() } }
        let setup = postgres ? "PostgreSQL, replica A → replica B (two processes)" : "SQLite, one server process"
        print("bench events: \(setup); \(events) sightings, \(streams) idle streams, \(Int(idleSeconds)) s per CPU sample")

        // Its own client: the shared one opens at most 8 connections to a host, fewer than the streams.
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = streams + 8
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        var failure: (any Error)?
        do {
            try await measure(a: a, b: b, sentinel: sentinel, client: client)
        } catch {
            failure = error
        }
        // The streams were cancelled; a shutdown error about them changes no figure.
        try? await client.shutdown()
        if let failure { throw failure }
    }

    private func measure(a: LocalServer, b: LocalServer, sentinel: String, client: HTTPClient) async throws {
        let owner = try await Owner.make(on: a)
        let latencies = try await measureLatency(owner: owner, sentinel: sentinel, a: a, b: b, client: client)
        let sorted = latencies.sorted()
        let p50 = RegionBench.percentile(sorted, 50) ?? Double.nan, p99 = RegionBench.percentile(sorted, 99) ?? Double.nan
        print(String(format: "latency POST on A → event on B: p50 %.1f ms, p99 %.1f ms, max %.1f ms (n = %d)",
                     p50, p99, sorted.last ?? Double.nan, sorted.count))

        try await Task.sleep(for: .seconds(1))
        let idle = try await cpuSeconds(of: b, over: idleSeconds)
        let held = try await withOpenStreams(streams, owner: owner, on: b, client: client) { try await cpuSeconds(of: b, over: idleSeconds) }
        // /proc counts in clock ticks (10 ms): an idle server often spends less than one in a sample.
        let ratio = idle > 0 ? String(format: "%.1f× the idle server", held / idle) : "the idle server used less than one clock tick"
        print(String(format: "idle CPU of the stream server: 0 streams %.2f ms/s, %d streams %.2f ms/s (%@; one core = 1000 ms/s)",
                     idle / idleSeconds * 1000, streams, held / idleSeconds * 1000, ratio))
    }

    /// One sighting at a time: the time from sending the POST to reading its event on B's stream.
    private func measureLatency(owner: Owner, sentinel: String, a: LocalServer, b: LocalServer, client: HTTPClient) async throws -> [Double] {
        let stream = try await EventStream.open(b.baseURL, token: owner.token, client: client)
        defer { stream.close() }
        let poster = ServerConnection(baseURL: a.baseURL, token: sentinel, client: client)
        var latencies: [Double] = []
        for index in 0..<events {
            let time = Timestamp.format(milliseconds: Int64(Date().timeIntervalSince1970 * 1000))
            let item = SightingItem(id: UUID().uuidString.lowercased(), uuid: owner.beacon.uuid.uuidString, major: Int(owner.beacon.major),
                                    minor: Int(owner.beacon.minor), event: index % 2 == 0 ? "arrived" : "departed", time: time,
                                    firstSeen: time, lastSeen: time, rssi: -60, distance: 1.5, zone: "near")
            let start = ContinuousClock.now
            let status = try await poster.send(.POST, "/v1/sightings", json: try JSONEncoder().encode(SightingBatch(sightings: [item]))).status
            guard status == .ok else { throw BenchError("POST /v1/sightings answered \(status.code)") }
            guard try await stream.nextEvent(timeout: .seconds(5)) else {
                throw BenchError("no event on the stream within 5 s of sighting \(index)")
            }
            let elapsed = ContinuousClock.now - start
            latencies.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
        }
        return latencies
    }

    /// CPU seconds (user + system) the server process spends during `seconds`.
    private func cpuSeconds(of server: LocalServer, over seconds: Double) async throws -> Double {
        guard let before = ProcessCPU.seconds(pid: server.processIdentifier) else { throw BenchError("cannot read the server's CPU time from /proc") }
        try await Task.sleep(for: .seconds(seconds))
        guard let after = ProcessCPU.seconds(pid: server.processIdentifier) else { throw BenchError("cannot read the server's CPU time from /proc") }
        return after - before
    }

    private func withOpenStreams<R>(_ count: Int, owner: Owner, on server: LocalServer, client: HTTPClient,
                                    _ body: () async throws -> R) async throws -> R {
        var open: [EventStream] = []
        defer { for stream in open { stream.close() } }
        for _ in 0..<count { open.append(try await EventStream.open(server.baseURL, token: owner.token, client: client)) }
        try await Task.sleep(for: .seconds(1))
        return try await body()
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// An owner with one bike on the missing list, whose events the benchmark watches.
struct Owner {
    var token: String
    var beacon: BeaconID

    static func make(on server: LocalServer) async throws -> Owner {
        let account = try AccountClient(server: server.baseURL)
        let email = "bench-\(UUID().uuidString.prefix(8).lowercased())@example.org", password = "bench password"
        _ = try await account.createAccount(email: email, password: password)
        let token = try await account.logIn(email: email, password: password)
        let beacon = BeaconID(uuid: UUID(), major: UInt16.random(in: 0...UInt16.max), minor: UInt16.random(in: 0...UInt16.max))
        let bike = try await account.register(BikeFields(name: "bench", beacon: beacon), token: token)
        _ = try await account.markMissing(bike: bike.id, token: token)
        return Owner(token: token, beacon: beacon)
    }
}
