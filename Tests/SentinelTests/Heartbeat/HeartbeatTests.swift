import BikebeaconAPI
import Foundation
import LocalServer
import Logging
import Scanning
import ServerClient
import Testing
import TestSupport
@testable import Sentinel
import Subprocesses

/// The sentinel's side of the heartbeat: what it measures (pure, on an injected clock), and the
/// refresh that carries it to the real server.
@Suite struct HeartbeatTests {
    static func inputs(reports: Int?, iBeacons: Int = 0, scanning: Bool? = true, startedAt: Double = 1000) -> HeartbeatInputs {
        var counts = ScanCounts()
        counts.reports = reports ?? 0
        counts.iBeacons = iBeacons
        (counts.adapterPresent, counts.adapterPowered, counts.scanning) = (true, true, scanning)
        return HeartbeatInputs(startedAt: startedAt, backend: "dbus", counts: reports == nil ? nil : counts, missingInRange: 1, outboxDepth: 3,
                               outboxOldest: 1010, lastDeliveryAt: 1005, disk: DiskSpace(freeBytes: 4, totalBytes: 100),
                               lastError: LastErrorLog.Entry(message: String(repeating: "x", count: 900), time: 1001),
                               pathLoss: pathLoss)
    }

    static let pathLoss = SentinelPathLoss(calibration: .onePoint, exponent: 1.5, nearFieldExponent: 2)

    static func beat(_ meter: inout HeartbeatMeter, _ inputs: HeartbeatInputs, now: Double) throws -> SentinelHeartbeat {
        let beat = meter.beat(inputs, now: now)
        return try #require(beat)
    }

    @Test func theMeterCountsEachIntervalAndBeatsAtMostOnceAMinute() throws {
        var meter = HeartbeatMeter()
        // Before the scanner's first totals there is nothing true to say.
        let early = meter.beat(Self.inputs(reports: nil), now: 1001)
        #expect(early == nil)
        let first = try Self.beat(&meter, Self.inputs(reports: 500, iBeacons: 4), now: 1020)
        #expect(first.uptimeSeconds == 20 && first.intervalSeconds == 20 && first.reports == 500 && first.iBeacons == 4)
        #expect(first.lastReportAgeSeconds == 0 && first.outboxDepth == 3 && first.outboxOldestAgeSeconds == 10 && first.missingInRange == 1)
        #expect(first.adapterPresent == true && first.scanning && first.clockOffsetSeconds == nil)
        #expect(first.lastError?.count == HeartbeatLimits.maxText && first.lastDeliveryAt == "1970-01-01T00:16:45.000Z")
        #expect(first.pathLoss == Self.pathLoss, "the model behind the distances (#44)")
        #expect(HeartbeatLimits.violation(in: first) == nil)
        // Less than a minute later: none (the list refresh still goes out, without it).
        let tooSoon = meter.beat(Self.inputs(reports: 600), now: 1060)
        #expect(tooSoon == nil)
        let second = try Self.beat(&meter, Self.inputs(reports: 800, iBeacons: 5), now: 1080)
        #expect(second.intervalSeconds == 60 && second.reports == 300 && second.iBeacons == 1)
        // A quiet radio: nothing new, and the age of the last report grows.
        let quiet = try Self.beat(&meter, Self.inputs(reports: 800, scanning: false), now: 1140)
        #expect(quiet.reports == 0 && quiet.lastReportAgeSeconds == 60 && !quiet.scanning)
        // A scanner started afresh counts from zero.
        let afresh = try Self.beat(&meter, Self.inputs(reports: 20), now: 1200)
        #expect(afresh.reports == 20)
    }

    @Test func aSteppedClockStillGivesAHeartbeatTheServerTakes() throws {
        var meter = HeartbeatMeter()
        _ = meter.beat(Self.inputs(reports: 1), now: 2000)
        // NTP stepped the clock back an hour: a heartbeat goes out at once, never with negative times.
        let back = try Self.beat(&meter, Self.inputs(reports: 2, startedAt: 2000), now: -1600)
        #expect(back.uptimeSeconds == 0 && back.intervalSeconds == 0 && back.outboxOldestAgeSeconds == 0)
        meter.serverDate(1_795_000_000, sentAt: 0, receivedAt: 2)
        let offset = try Self.beat(&meter, Self.inputs(reports: 3), now: 100)
        #expect(offset.clockOffsetSeconds == -1_795_000_000)
        #expect(HeartbeatLimits.violation(in: offset) == nil && HeartbeatLimits.violation(in: back) == nil)
    }

    @Test func clockOffsetFromTheServersDate() {
        var meter = HeartbeatMeter()
        // Asked at 100.0, answered at 100.4; the server's Date said 97 (whole seconds from a cache a second old at most,
        // so 98 on average).
        meter.serverDate(97, sentAt: 100, receivedAt: 100.4)
        #expect(abs((meter.clockOffset ?? 0) - 2.2) < 1e-9)
    }

    @Test func httpDates() {
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777)
        #expect(HTTPDate.parse("Thu, 26 Nov 2026 00:20:51 GMT") == 1_795_652_451)
        for bad in ["", "Sun, 06 Nov 1994 08:49:37 UTC", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
                    "Sun, 31 Feb 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT"] {
            #expect(HTTPDate.parse(bad) == nil, "\(bad)")
        }
    }

    @Test func theLastWarningOrErrorIsKept() {
        let log = LastErrorLog()
        var logger = Logger(label: "test") { _ in Quiet() }
        logger.handler = LastErrorLog.recording(logger.handler, into: log)
        logger.info("scanning")
        #expect(log.last == nil)
        logger.warning("cannot deliver sightings; they stay queued", metadata: ["error": "timeout"])
        #expect(log.last?.message == "cannot deliver sightings; they stay queued: timeout")
        logger.error("bluetoothd left the system bus")
        logger.notice("the server takes sightings again")
        #expect(log.last?.message == "bluetoothd left the system bus")
    }
}

/// A handler that passes every level and writes nothing (swift-log's no-op one lets no level through).
struct Quiet: LogHandler {
    var logLevel = Logger.Level.trace
    var metadata: Logger.Metadata = [:]
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) {}
}

/// The refresh carries the heartbeat to the real `bikebeacon-server`, which stores it for this
/// sentinel; a heartbeat the server refuses does not cost the list.
@Suite(.serialized, .enabled(if: ServerHarness.isAvailable, "needs the bikebeacon-server executable (build the server target)"))
struct HeartbeatWireTests {
    @Test func theRefreshCarriesTheHeartbeatAndMeasuresTheClock() async throws {
        let dir = try TestValues.temporaryDirectory()
        let server = try ServerHarness(directory: dir)
        let token = try await server.enrolSentinel(name: "cafe")
        try await server.start()
        defer { server.stop() }
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let probe = HeartbeatProbe(logger: logger) { HeartbeatTests.inputs(reports: 1234, startedAt: Date().timeIntervalSince1970 - 30) }
        let source = HTTPMissingListSource(server: ServerConnection(baseURL: server.url, token: token), heartbeat: probe)
        let sent = Date()
        guard case .full = try await source.fetch(since: nil, etag: nil) else { throw HarnessError("expected the whole list") }
        let roundTrip = Date().timeIntervalSince(sent)
        // The answer's Date measured the clock: this machine's own, so off by no more than the Date's 2 s (a cached whole
        // second: 1 s from its middle), half the round trip (a loaded CI host once took 2.6 s for it), and the cache's
        // once-a-second refresh running late on a loaded host (a quarter second allowed).
        let offset = try #require(await probe.clockOffset)
        #expect(abs(offset) <= HTTPDate.serverClockPastDate + roundTrip / 2 + 0.25, "offset \(offset) s, round trip \(roundTrip) s")

        let binary = try #require(ServerHarness.binary)
        let shown = try await run(path: binary.path, ["sentinels", "show", "cafe", "--database", server.database])
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.lines.contains { $0.hasPrefix("version \(BikebeaconVersion.current), up ") && $0.hasSuffix(" s, backend dbus") }, "\(shown.stdout)")
        #expect(shown.lines.contains { $0.hasPrefix("heard: 1234 reports") }, "\(shown.stdout)")
        #expect(shown.lines.contains { $0.hasPrefix("state: degraded") && $0.contains("disk almost full") }, "\(shown.stdout)")
    }

    @Test func aRefusedHeartbeatStillGetsTheList() async throws {
        let dir = try TestValues.temporaryDirectory()
        let server = try ServerHarness(directory: dir)
        let token = try await server.enrolSentinel(name: "cafe")
        try await server.start()
        defer { server.stop() }
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        // An empty backend is out of range for the server: it answers 400 invalid_heartbeat.
        let probe = HeartbeatProbe(logger: logger) {
            var inputs = HeartbeatTests.inputs(reports: 1)
            inputs.backend = ""
            return inputs
        }
        let source = HTTPMissingListSource(server: ServerConnection(baseURL: server.url, token: token), heartbeat: probe)
        guard case .full = try await source.fetch(since: nil, etag: nil) else { throw HarnessError("expected the whole list") }
        let binary = try #require(ServerHarness.binary)
        let shown = try await run(path: binary.path, ["sentinels", "show", "cafe", "--database", server.database])
        #expect(shown.lines.contains("state: silent (no heartbeat yet)"), "\(shown.stdout)")
    }

    /// A list the sentinel cannot parse (a broken proxy, a truncated answer) does not keep the
    /// heartbeat from the server: it went out with the request, before the answer was read.
    @Test func theHeartbeatLeavesEvenWhenTheListCannotBeParsed() async throws {
        let dir = try TestValues.temporaryDirectory()
        let seen = dir.appendingPathComponent("heartbeat.json").path
        let port = try LoopbackPort.free()
        let script = """
            import http.server, sys
            class H(http.server.BaseHTTPRequestHandler):
                def do_GET(self):
                    open(sys.argv[1], "w").write(self.headers.get("Bikebeacon-Heartbeat", ""))
                    self.send_response(200); self.send_header("Content-Type", "application/json"); self.end_headers()
                    self.wfile.write(b'{"version": 3, "beacons": [{"uuid": ')
                def log_message(self, *args): pass
            http.server.HTTPServer(("127.0.0.1", int(sys.argv[2])), H).handle_request()
            """
        let process = try ChildProcess.spawn("/usr/bin/python3", ["-c", script, seen, String(port)])
        defer { process.terminate() }
        let logger = Logger(label: "test") { _ in Quiet() }
        // Until Python listens: refused connections first (each with a fresh sentinel: a heartbeat
        // is made once a minute), then the answer it cannot parse.
        var answer: Result<MissingListAnswer, any Error> = .failure(HarnessError("not asked"))
        for _ in 0..<100 {
            let probe = HeartbeatProbe(logger: logger) { HeartbeatTests.inputs(reports: 7) }
            let source = HTTPMissingListSource(server: ServerConnection(baseURL: "http://127.0.0.1:\(port)", token: "bbs_x"), heartbeat: probe)
            do {
                answer = .success(try await source.fetch(since: nil, etag: nil))
            } catch {
                answer = .failure(error)
            }
            if FileManager.default.fileExists(atPath: seen) { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        guard case let .failure(error) = answer else { throw HarnessError("a list that cannot be parsed was taken") }
        #expect(error is MissingListWireError || error is DecodingError, "\(error)")
        let beat = try JSONDecoder().decode(SentinelHeartbeat.self, from: Data(contentsOf: URL(fileURLWithPath: seen)))
        #expect(beat.reports == 7 && beat.outboxDepth == 3 && beat.backend == "dbus")
    }
}
