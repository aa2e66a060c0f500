#if canImport(Glibc)
import Glibc
#endif
import Beacon
import Foundation
import LocalServer
import NIOHTTP1
import Registry
import Scanning
import ServerClient
import Testing
import TestSupport
@testable import Sentinel
import Subprocesses

/// Fault tests against the REAL `bikebeacon-server` process and the real `bikebeacon sentinel`
/// process replaying the bundled real capture (Tests/Fixtures/captures/govee-h5100.btsnoop, MIT,
/// see SOURCE.txt there). What the sentinel should report is predicted by running the same pure
/// core in-process; the server's own sighting list must match it exactly: nothing lost, nothing
/// duplicated.
@Suite(.serialized, .enabled(if: ServerHarness.isAvailable, "needs the bikebeacon-server executable (build the server target)"))
struct EndToEndTests {
    static let capture = Paths.fixture("captures/govee-h5100.btsnoop").path
    /// Every beacon in the capture.
    static let beacons = [
        "494E5445-4C4C-495F-524F-434B535F4857:20597:62207", "494E5445-4C4C-495F-524F-434B535F4857:20596:25984",
        "494E5445-4C4C-495F-524F-434B535F4857:20596:32020", "494E5445-4C4C-495F-524F-434B535F4857:20596:39576",
        "494E5445-4C4C-495F-524F-434B535F4857:20855:62207", "494E5445-4C4C-495F-524F-434B535F4857:20596:3932",
    ].compactMap(BeaconID.init)

    struct Key: Hashable { var beacon: String; var event: String; var time: String }

    /// What a sentinel replaying the capture must report, from the pure core.
    static func expected(missing: [BeaconID], presentInterval: Double) async throws -> [Key] {
        var core = SentinelCore(registry: MissingRegistry(version: 1, bikes: missing.map { TestValues.bike($0) }),
                                sighting: .init(presentInterval: presentInterval))
        var sightings: [Sighting] = []
        for ad in try await SentinelCoreTests.advertisements() { sightings += core.replay(ad, makeID: { UUID() }).sightings }
        sightings += core.finishReplay(makeID: { UUID() }).sightings
        return sightings.map { Key(beacon: $0.beacon.description, event: $0.event.rawValue, time: RFC3339.format($0.time)) }
    }

    static func keys(_ sightings: [ServerSighting]) -> [Key] {
        sightings.map { Key(beacon: "\($0.beacon.uuid.uppercased()):\($0.beacon.major):\($0.beacon.minor)", event: $0.event, time: $0.time) }
    }

    static func multiset(_ keys: [Key]) -> [Key: Int] { keys.reduce(into: [:]) { $0[$1, default: 0] += 1 } }

    static func writeConfig(_ dir: URL, server: ServerHarness, token: String, presentInterval: Double, batchSize: Int) throws -> String {
        let path = dir.appendingPathComponent("sentinel.yaml").path
        try """
        server:
          url: \(server.url)
          token: \(token)
          timeout: 2
        stateDirectory: \(dir.appendingPathComponent("state").path)
        intervals:
          present: \(presentInterval)
        outbox:
          batchSize: \(batchSize)
        """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func startSentinel(_ arguments: [String]) throws -> ChildProcess {
        try ChildProcess.spawn(Paths.executable("bikebeacon").path, arguments, stdout: .discard, stderr: .discard)
    }

    static func queued(_ stateDirectory: URL) async throws -> [Sighting] {
        var queued: [Sighting] = []
        try await TestValues.withOutbox(path: stateDirectory.appendingPathComponent("outbox.sqlite").path) { queued = try await $0.peek(limit: 10_000) }
        return queued
    }

    /// The sentinel's exit status once it finishes by itself; throws (and stops it) after `seconds`.
    static func statusWhenFinished(_ process: ChildProcess, within seconds: Int) async throws -> Int32 {
        guard let status = await exitStatus(of: process, within: .seconds(seconds)) else {
            process.terminate()
            throw HarnessError("the sentinel did not finish within \(seconds) s")
        }
        return status
    }

    @Test func serverDownForTheWholeReplayThenUpDeliversEachSightingOnce() async throws {
        let dir = try TestValues.temporaryDirectory()
        let missing = [SentinelCoreTests.missing]
        let server = try ServerHarness(directory: dir)
        let token = try await server.enrolSentinel(name: "cafe")
        try await server.start()
        defer { server.stop() }
        let owner = try await server.ownerWithMissingBikes(missing)
        let config = try Self.writeConfig(dir, server: server, token: token, presentInterval: 120, batchSize: 2)

        // Fetch and save the list with a capture in which the bike is absent.
        let prime = try await run("bikebeacon", ["sentinel", "--config", config, "--replay", Paths.fixture("captures/govee-inout.pcap").path])
        #expect(prime.status == 0, "\(prime.stderr)")

        server.stop()
        let sentinel = try Self.startSentinel(["sentinel", "--config", config, "--replay", Self.capture, "--drain-timeout", "120"])
        let expected = try await Self.expected(missing: missing, presentInterval: 120)
        let state = dir.appendingPathComponent("state")
        // Everything is decided and queued while the server is down.
        var queued: [Sighting] = []
        for _ in 0..<100 where queued.count < expected.count {
            try await Task.sleep(for: .milliseconds(200))
            queued = try await Self.queued(state)
        }
        #expect(queued.count == expected.count)
        #expect(sentinel.isRunning)

        try await server.start()
        #expect(try await Self.statusWhenFinished(sentinel, within: 90) == 0)
        let delivered = try await server.sightings(owner: owner.token, bikes: owner.bikes)
        #expect(Set(delivered.map(\.clientId)).count == delivered.count)
        #expect(Self.multiset(Self.keys(delivered)) == Self.multiset(expected))
        #expect(Set(delivered.map(\.clientId)) == Set(queued.map { $0.id.uuidString.lowercased() }))
        #expect(try await Self.queued(state).isEmpty)
    }

    /// gpsd away for the whole run (nothing answers on its port): a roaming sentinel's sightings
    /// leave without a position, none held back waiting for a fix, none lost. What it must report
    /// comes from the same pure core and `PassingTracker`, with no fix.
    @Test func aRoamingSentinelWithoutGpsdStillDeliversEverySighting() async throws {
        let dir = try TestValues.temporaryDirectory()
        let missing = [SentinelCoreTests.missing]
        let server = try ServerHarness(directory: dir)
        let token = try await server.enrolSentinel(name: "Bus line 12", roaming: true)
        try await server.start()
        defer { server.stop() }
        let owner = try await server.ownerWithMissingBikes(missing)
        let config = try Self.writeConfig(dir, server: server, token: token, presentInterval: 120, batchSize: 2)
        // Held bound, not listening, for the whole run: no other test's server can answer on it.
        let gpsd = try RefusingPort()
        defer { gpsd.close() }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: config))
        handle.seekToEndOfFile()
        handle.write(Data("\nlocation:\n  gpsd: {host: 127.0.0.1, port: \(gpsd.port)}\n  passInterval: 60\n".utf8))
        try handle.close()

        let result = try await run("bikebeacon", ["sentinel", "--config", config, "--replay", Self.capture, "--drain-timeout", "60"])
        #expect(result.status == 0, "\(result.stderr)")

        var core = SentinelCore(registry: MissingRegistry(version: 1, bikes: missing.map { TestValues.bike($0) }), sighting: .init(presentInterval: 120))
        var passes = PassingTracker(passInterval: 60)
        var expected: [Sighting] = []
        let ads = try await SentinelCoreTests.advertisements()
        var lastCheck = -Double.infinity
        for ad in ads {
            _ = core.replay(ad, makeID: { UUID() })
            if core.registry.contains(ad.beacon) {
                passes.observe(ad.beacon, time: ad.time, rssi: ad.rssi, place: .noFix, estimate: core.estimate(of: ad.beacon, at: ad.time))
            }
            // Passes end once a second of capture time.
            if ad.time - lastCheck >= 1 {
                lastCheck = ad.time
                expected += passes.finish(at: ad.time, makeID: { UUID() })
            }
        }
        expected += passes.finish(at: ads.last?.time ?? 0, force: true, makeID: { UUID() })
        try #require(expected.count >= 3)

        let delivered = try await server.sightings(owner: owner.token, bikes: owner.bikes)
        let keys = expected.map { Key(beacon: $0.beacon.description, event: $0.event.rawValue, time: RFC3339.format($0.time)) }
        #expect(Self.multiset(Self.keys(delivered)) == Self.multiset(keys))
        #expect(delivered.allSatisfy { $0.event == "passing" && $0.fix == "none" && $0.latitude == nil })
        #expect(try await Self.queued(dir.appendingPathComponent("state")).isEmpty)
    }

    @Test func killedMidUploadThenRestartedLosesAndDuplicatesNothing() async throws {
        let dir = try TestValues.temporaryDirectory()
        // A rate-limited server makes the upload slow enough to be killed in the middle of it.
        let server = try ServerHarness(directory: dir, extraArguments: ["--sentinel-rate", "4"])
        let token = try await server.enrolSentinel(name: "garage")
        try await server.start()
        defer { server.stop() }
        let owner = try await server.ownerWithMissingBikes(Self.beacons)
        let config = try Self.writeConfig(dir, server: server, token: token, presentInterval: 60, batchSize: 1)
        let expected = try await Self.expected(missing: Self.beacons, presentInterval: 60)
        #expect(expected.count >= 20)

        let sentinel = try Self.startSentinel(["sentinel", "--config", config, "--replay", Self.capture, "--drain-timeout", "120"])
        var onServer = 0
        for _ in 0..<300 where onServer < 3 {
            try await Task.sleep(for: .milliseconds(50))
            onServer = try await server.sightings(owner: owner.token, bikes: owner.bikes).count
        }
        sentinel.send(SIGKILL)
        #expect(try await exitStatus(of: sentinel) == 128 + SIGKILL)
        let state = dir.appendingPathComponent("state")
        let leftOver = try await Self.queued(state)
        #expect(onServer >= 3)
        #expect(!leftOver.isEmpty, "the kill came after the upload finished; the test did not test anything")

        let restart = try await run("bikebeacon", ["sentinel", "--config", config, "--flush", "--drain-timeout", "120"])
        #expect(restart.status == 0, "\(restart.stderr)")
        let delivered = try await server.sightings(owner: owner.token, bikes: owner.bikes)
        #expect(Set(delivered.map(\.clientId)).count == delivered.count)
        #expect(Self.multiset(Self.keys(delivered)) == Self.multiset(expected))
        #expect(try await Self.queued(state).isEmpty)
    }

    @Test func aRefusedTokenKeepsEverythingQueuedAndTellsTheOperator() async throws {
        let dir = try TestValues.temporaryDirectory()
        let server = try ServerHarness(directory: dir)
        try await server.start()
        defer { server.stop() }
        let config = try Self.writeConfig(dir, server: server, token: "bbs_not-a-real-token", presentInterval: 120, batchSize: 10)
        let state = dir.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        try MissingListCache(path: state.appendingPathComponent("missing-list.json").path).save(
            MissingListSnapshot(version: 1, etag: nil, confirmedAt: Date().timeIntervalSince1970, bikes: [TestValues.bike(SentinelCoreTests.missing)]))
        let result = try await run("bikebeacon", ["sentinel", "--config", config, "--replay", Self.capture, "--drain-timeout", "2"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("refused the sentinel token"))
        #expect(result.stderr.contains("sentinels add"))
        let queued = try await Self.queued(state)
        #expect(queued.count == (try await Self.expected(missing: [SentinelCoreTests.missing], presentInterval: 120)).count)
    }

    @Test func aBikeMarkedRecoveredGetsNoMoreReportsAndListChangesArePickedUp() async throws {
        let dir = try TestValues.temporaryDirectory()
        let server = try ServerHarness(directory: dir)
        let token = try await server.enrolSentinel(name: "station")
        try await server.start()
        defer { server.stop() }
        let owner = try await server.ownerWithMissingBikes([SentinelCoreTests.missing])
        let config = try Self.writeConfig(dir, server: server, token: token, presentInterval: 120, batchSize: 10)
        let sync = MissingListSync(source: HTTPMissingListSource(server: ServerConnection(baseURL: server.url, token: token)),
                                   cache: MissingListCache(path: dir.appendingPathComponent("list.json").path))
        #expect(await sync.start(now: Date().timeIntervalSince1970))
        #expect(await sync.registry.contains(SentinelCoreTests.missing))
        let before = await sync.registry.version
        // Unchanged: 304.
        #expect(try await sync.refresh(now: Date().timeIntervalSince1970) == .unchanged)

        let (status, _) = try await server.request(.POST, "/v1/bikes/\(owner.bikes[0])/recovered", token: owner.token, json: [String: Any]())
        #expect(status == 200)
        // Changed: picked up by the next refresh, as a delta.
        guard case let .applied(delta) = try await sync.refresh(now: Date().timeIntervalSince1970) else {
            Issue.record("expected a delta after the bike was recovered"); return
        }
        #expect(delta.since == before && delta.removed == [SentinelCoreTests.missing])
        #expect(await sync.registry.isEmpty)

        // A sentinel starting now reports nothing of the recovered bike.
        let result = try await run("bikebeacon", ["sentinel", "--config", config, "--replay", Self.capture, "--drain-timeout", "30"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try await server.sightings(owner: owner.token, bikes: owner.bikes).isEmpty)
    }
}
