import AsyncHTTPClient
import Foundation
import LocalServer
import NIOCore
import Registry
import Testing
import TestSupport
@testable import Sentinel
import Subprocesses

/// The `bikebeacon sentinel` and `status` commands as an operator runs them, on the bundled
/// real capture (Tests/Fixtures/captures/govee-h5100.btsnoop, MIT, see SOURCE.txt there), with
/// the server unreachable: nothing may be lost, nothing may crash.
@Suite struct SentinelCommandTests {
    static let capture = Paths.fixture("captures/govee-h5100.btsnoop").path
    /// A port nothing listens on.
    static let deadServer = "http://127.0.0.1:9"

    static func stateDirectory(missing: [MissingBike]) throws -> URL {
        let dir = try TestValues.temporaryDirectory()
        if !missing.isEmpty {
            let snapshot = MissingListSnapshot(version: 3, etag: "\"v3\"", confirmedAt: Date().timeIntervalSince1970 - 3600, bikes: missing)
            try MissingListCache(path: dir.appendingPathComponent("missing-list.json").path).save(snapshot)
        }
        return dir
    }

    static func config(_ dir: URL, extra: String = "") throws -> String {
        let path = dir.appendingPathComponent("sentinel.yaml").path
        try """
        server:
          url: \(deadServer)
          token: test-token
          timeout: 1
        stateDirectory: \(dir.path)
        intervals:
          present: 120
        \(extra)
        """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func withTheServerDownSightingsWaitInTheOutbox() async throws {
        let dir = try Self.stateDirectory(missing: [TestValues.bike(SentinelCoreTests.missing)])
        let result = try await run("bikebeacon", ["sentinel", "--config", try Self.config(dir), "--replay", Self.capture, "--drain-timeout", "1"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("using the saved missing list"))
        #expect(result.stderr.contains("sightings stay queued"))
        try await TestValues.withOutbox(path: dir.appendingPathComponent("outbox.sqlite").path) { outbox in
            let queued = try await outbox.peek(limit: 100)
            #expect(queued.first?.event == .arrived)
            #expect(queued.last?.event == .departed)
            #expect(queued.count >= 3)
            #expect(queued.allSatisfy { $0.beacon == SentinelCoreTests.missing })
        }
        // The sentinel has exited; its final status stays valid for as long as this test may be
        // kept waiting by its neighbours on a loaded machine.
        let status = try await run("bikebeacon", ["status", "--state-directory", dir.path, "--max-age", "600"])
        #expect(status.status == 0)
        #expect(status.stdout.contains("advertisements: 99"))
        let stale = try await run("bikebeacon", ["status", "--state-directory", dir.path, "--max-age", "0.001"])
        #expect(stale.status == 1)
        #expect(stale.stderr.contains("stopped or hung"))
        #expect(status.stdout.contains("missing list: version 3, 1 bikes"))
        let metrics = try String(contentsOf: dir.appendingPathComponent("metrics.prom"), encoding: .utf8)
        #expect(metrics.contains("bikebeacon_matches_total 17\n"))
    }

    @Test func servesMetricsThenStopsCleanlyOnSIGTERMKeepingTheQueue() async throws {
        let dir = try Self.stateDirectory(missing: [TestValues.bike(SentinelCoreTests.missing)])
        let port = try LoopbackPort.free()
        let config = try Self.config(dir, extra: "metrics: {port: \(port)}")
        let err = dir.appendingPathComponent("sentinel.err")
        let process = try ChildProcess.spawn(Paths.executable("bikebeacon").path,
                                             ["sentinel", "--config", config, "--replay", Self.capture, "--drain-timeout", "600"],
                                             stdout: .discard, stderr: .file(err.path))
        // Wait until the replay has queued its sightings and the sentinel waits for the server.
        let outbox = dir.appendingPathComponent("outbox.sqlite").path
        var queued = 0
        for _ in 0..<100 where queued < 4 {
            try await Task.sleep(for: .milliseconds(100))
            if FileManager.default.fileExists(atPath: outbox) {
                try await TestValues.withOutbox(path: outbox) { queued = try await $0.count() }
            }
        }
        #expect(process.isRunning)
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/metrics")
        request.method = .GET
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(5))
        let metrics = String(buffer: try await response.body.collect(upTo: 1 << 20))
        #expect(response.status.code == 200)
        #expect(metrics.contains("bikebeacon_matches_total 17\n"))
        #expect(metrics.contains("bikebeacon_outbox_depth \(queued).0\n"))
        #expect(metrics.contains("bikebeacon_scanner_restarts_total 0\n"), "a capture never restarts")
        process.terminate()
        // The sentinel drains and writes its last status first: wait off the cooperative pool.
        let status = try await exitStatus(of: process)
        let stderr = (try? String(contentsOf: err, encoding: .utf8)) ?? ""
        #expect(status == 0, "\(stderr)")
        #expect(stderr.contains("sentinel stopped"))
        var after = -1
        try await TestValues.withOutbox(path: outbox) { after = try await $0.count() }
        #expect(after == queued && queued >= 4)
    }

    @Test func aCorruptListCacheIsSetAsideNotACrash() async throws {
        let dir = try Self.stateDirectory(missing: [])
        try Data("{\"version\": 3, \"bikes\": [".utf8).write(to: dir.appendingPathComponent("missing-list.json"))
        let result = try await run("bikebeacon", ["sentinel", "--config", try Self.config(dir), "--replay", Self.capture, "--drain-timeout", "0"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("the saved missing list was damaged"))
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        #expect(files.contains { $0.hasPrefix("missing-list.json.corrupt-") })
    }

    @Test func theOwnBikeAlarmRunsTheCommandWithTheEventOnStdin() async throws {
        let dir = try Self.stateDirectory(missing: [])
        let received = dir.appendingPathComponent("alarm.json").path
        let config = try Self.config(dir, extra: """
        ownBikes:
          - name: commuter
            beacon: \(SentinelCoreTests.own)
        alarm:
          command: ["/bin/sh", "-c", "cat >> \(received); echo >> \(received)"]
        """)
        let result = try await run("bikebeacon", ["sentinel", "--config", config, "--replay", Self.capture, "--drain-timeout", "0"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = try String(contentsOfFile: received, encoding: .utf8).split(separator: "\n")
        // One alarm, when the bike is gone for good (see SentinelCoreTests).
        #expect(lines.count == 1)
        let alarm = try JSONDecoder().decode(OwnBikeAlarm.self, from: Data(try #require(lines.last).utf8))
        #expect(alarm.bike == "commuter" && alarm.event == "left" && alarm.minor == 62207)
        // Uncalibrated, the operator is told how to fit the zone boundaries to this site.
        #expect(result.stderr.contains("own bikes are watched with the default path loss") && result.stderr.contains("bikebeacon calibrate"))
    }

    @Test func aCalibratedSiteGetsNoCalibrationHint() async throws {
        let dir = try Self.stateDirectory(missing: [])
        let config = try Self.config(dir, extra: """
        ownBikes:
          - name: commuter
            beacon: \(SentinelCoreTests.own)
        calibration:
          pathLossExponent: 2.2
        """)
        let result = try await run("bikebeacon", ["sentinel", "--config", config, "--replay", Self.capture, "--drain-timeout", "0"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("default path loss"), "\(result.stderr)")
    }

    @Test func aConfigWithoutTokenIsRefusedWithAHint() async throws {
        let dir = try TestValues.temporaryDirectory()
        let path = dir.appendingPathComponent("sentinel.yaml").path
        try "server:\n  url: http://127.0.0.1:8080\nstateDirectory: \(dir.path)\n".write(toFile: path, atomically: true, encoding: .utf8)
        let result = try await run("bikebeacon", ["sentinel", "--config", path, "--flush"], environment: ["BIKEBEACON_TOKEN": ""])
        #expect(result.status == 2)
        #expect(result.stderr.contains("sentinels add"))
        let withEnv = try await run("bikebeacon", ["sentinel", "--config", path, "--flush", "--drain-timeout", "0", "--server-url", Self.deadServer],
                              environment: ["BIKEBEACON_TOKEN": "from-env"])
        #expect(withEnv.status == 0, "\(withEnv.stderr)")
    }

    /// The packaged unit keeps the status files on a tmpfs (statusDirectory), away from the SD
    /// card that holds the state; `status --config` finds them there.
    @Test func statusFilesGoToTheStatusDirectory() async throws {
        let dir = try Self.stateDirectory(missing: [TestValues.bike(SentinelCoreTests.missing)])
        let statusDirectory = dir.appendingPathComponent("run").path
        let config = try Self.config(dir, extra: "statusDirectory: \(statusDirectory)")
        let result = try await run("bikebeacon", ["sentinel", "--config", config, "--replay", Self.capture, "--drain-timeout", "1"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: statusDirectory + "/metrics.prom"))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("status.json").path))
        let status = try await run("bikebeacon", ["status", "--config", config, "--max-age", "600"])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.contains("advertisements: 99"))
    }

    @Test func statusWithoutASentinelSaysSo() async throws {
        let dir = try TestValues.temporaryDirectory()
        let result = try await run("bikebeacon", ["status", "--state-directory", dir.path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("is a sentinel running"))
    }
}

@Suite struct SentinelConfigurationTests {
    @Test func environmentOverridesTheFile() throws {
        let yaml = """
        server: {url: "http://a:1", token: file}
        stateDirectory: /var/lib/x
        scanner: {backend: hci, adapter: hci1}
        ownBikes:
          - {name: red, beacon: "494E5445-4C4C-495F-524F-434B535F4857:20597:62207", zone: near}
        """
        let c = try SentinelConfiguration.parse(yaml: yaml, environment: ["BIKEBEACON_TOKEN": "env", "BIKEBEACON_BACKEND": "dbus"])
        #expect(c.serverURL == "http://a:1" && c.token == "env" && c.backend == .dbus && c.adapter == "hci1")
        #expect(c.ownBikes == [OwnBike(name: "red", beacon: SentinelCoreTests.own, zone: .near)])
        #expect(c.presentInterval == 300 && c.listRefreshInterval == 300)
        try c.validate()
    }

    @Test(arguments: ["server: [", "ownBikes: [{name: x, beacon: nope}]", "scanner: {backend: bluetooth}", "intervals: {present: soon}"])
    func badFilesAreTypedErrors(yaml: String) {
        #expect(throws: ConfigurationError.self) { try SentinelConfiguration.parse(yaml: yaml, environment: [:]) }
    }
}

/// A misspelt or mistyped key must stop the sentinel with the line to fix, not run it on defaults.
@Suite struct StrictConfigurationTests {
    static func problem(_ yaml: String) -> String {
        do {
            _ = try SentinelConfiguration.parse(yaml: yaml, environment: [:])
            return "parsed"
        } catch {
            return "\(error)"
        }
    }

    @Test func theShippedExampleIsValid() throws {
        let example = Paths.repository.appendingPathComponent("deploy/sentinel.example.yaml").path
        let c = try SentinelConfiguration.load(path: example, environment: [:])
        #expect(c.ownBikes.count == 1 && c.alarmCommand != nil)
    }

    @Test func aMisspeltTopLevelKeyNamesItsLineAndTheLikelyKey() {
        let text = Self.problem("server: {url: \"http://a:1\", token: t}\nstateDirectory: /tmp\nintervls:\n  present: 60\n")
        #expect(text.contains("line 3") && text.contains("'intervls'") && text.contains("did you mean 'intervals'"), "\(text)")
    }

    @Test func aMisspeltNestedKeyNamesItsPath() {
        let text = Self.problem("server:\n  url: http://a:1\n  tokn: t\n")
        #expect(text.contains("line 3") && text.contains("'server.tokn'") && text.contains("did you mean 'token'"), "\(text)")
    }

    @Test func anUnknownKeyInAListItemNamesTheItem() {
        let text = Self.problem("ownBikes:\n  - name: red\n    beacon: \"494E5445-4C4C-495F-524F-434B535F4857:20597:62207\"\n  - name: blue\n    beacon: \"494E5445-4C4C-495F-524F-434B535F4857:20597:1\"\n    zoen: near\n")
        #expect(text.contains("line 6") && text.contains("'ownBikes[1].zoen'"), "\(text)")
    }

    @Test func aValueOfTheWrongTypeNamesItsLineAndWhatWasFound() {
        let text = Self.problem("server: {url: \"http://a:1\", token: t}\nintervals:\n  present: soon\n")
        #expect(text.contains("line 3") && text.contains("'intervals.present'") && text.contains("expected a number") && text.contains("'soon'"), "\(text)")
    }

    @Test func anEnumeratedValueListsTheChoices() {
        let text = Self.problem("scanner:\n  backend: bluetooth\n")
        #expect(text.contains("line 2") && text.contains("'scanner.backend'") && text.contains("expected one of dbus, hci"), "\(text)")
    }

    @Test func checkConfigAcceptsAGoodFileAndPointsAtABadOne() async throws {
        let dir = try TestValues.temporaryDirectory()
        let good = dir.appendingPathComponent("good.yaml").path
        try "server: {url: \"http://127.0.0.1:9\", token: t}\nstateDirectory: \(dir.path)\n".write(toFile: good, atomically: true, encoding: .utf8)
        let ok = try await run("bikebeacon", ["sentinel", "--check-config", good])
        #expect(ok.status == 0 && ok.stdout.contains("OK"), "\(ok.stderr)")

        let bad = dir.appendingPathComponent("bad.yaml").path
        try "server: {url: \"http://127.0.0.1:9\", token: t}\nscanner:\n  backnd: hci\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let refused = try await run("bikebeacon", ["sentinel", "--check-config", bad])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains(bad) && refused.stderr.contains("line 3") && refused.stderr.contains("'scanner.backnd'"), "\(refused.stderr)")
    }
}
