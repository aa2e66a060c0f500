#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Sentinel
import Testing
import TestSupport

/// `bikebeacon enroll` end to end: the built CLI against the real `bikebeacon-server`, writing into a
/// temp directory (--no-start). Every refusal leaves no file behind and, where it can, the code unspent.
@Suite(.serialized, .enabled(if: ServerHarness.isAvailable, "needs the bikebeacon-server executable (build the server target)"))
struct EnrollCommandTests {
    /// The files in `directory`: a refusal must leave none (nor a temporary one).
    static func files(_ directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    @Test func enrolsWithTheURLAndWritesAWorkingConfig() async throws {
        let dir = try TestValues.temporaryDirectory()
        let server = try ServerHarness(directory: dir)
        try await server.start()
        defer { server.stop() }
        let enrolment = try await server.enrolWithCode(name: "Cafe Rosa")
        let etc = dir.appendingPathComponent("etc")
        try FileManager.default.createDirectory(at: etc, withIntermediateDirectories: true)
        let config = etc.appendingPathComponent("sentinel.yaml").path

        let result = try await run("bikebeacon", ["enroll", enrolment.url, "--config", config, "--no-start", "--skip-radio-check"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("enrolled as 'Cafe Rosa' (at 52.3676, 4.9041) on \(server.url)"))
        #expect(result.stdout.contains("bikebeacon calibrate --beacon UUID:MAJOR:MINOR --distance 1"))
        #expect(result.stdout.contains("--distance 3 --other-point 1=RSSI --save sentinel"))
        #expect(result.stdout.contains("not started (--no-start)"))
        // The token is never shown.
        #expect(!result.stdout.contains(enrolment.token) && !result.stderr.contains(enrolment.token))
        #expect(try Self.files(etc) == ["sentinel.yaml"])
        var info = stat()
        #expect(stat(config, &info) == 0 && info.st_mode & 0o777 == 0o640)

        let settings = try SentinelConfiguration.load(path: config, environment: [:])
        #expect(settings.serverURL == server.url && settings.token == enrolment.token && !settings.location.isRoaming)
        // The sentinel accepts the file, and the server the token in it.
        let check = try await run("bikebeacon", ["sentinel", "--check-config", config])
        #expect(check.status == 0, "\(check.stderr)")
        let (status, _) = try await server.request(.GET, "/v1/missing", token: settings.token)
        #expect(status == 200)

        // The same URL again, for another file: the code is used; nothing is written.
        let again = dir.appendingPathComponent("again")
        try FileManager.default.createDirectory(at: again, withIntermediateDirectories: true)
        let reused = try await run("bikebeacon", ["enroll", enrolment.url, "--config", again.appendingPathComponent("sentinel.yaml").path,
                                                  "--no-start", "--skip-radio-check"])
        #expect(reused.status == 1)
        #expect(reused.stderr.contains("HTTP 410") && reused.stderr.contains("was used at") && reused.stderr.contains("nothing was written"), "\(reused.stderr)")
        #expect(try Self.files(again).isEmpty)
    }

    @Test func unknownCodeAndUnreachableServerWriteNothing() async throws {
        let dir = try TestValues.temporaryDirectory()
        let server = try ServerHarness(directory: dir)
        try await server.start()
        defer { server.stop() }
        let etc = dir.appendingPathComponent("etc")
        try FileManager.default.createDirectory(at: etc, withIntermediateDirectories: true)
        let config = etc.appendingPathComponent("sentinel.yaml").path

        let unknown = try await run("bikebeacon", ["enroll", server.url, "0000-0000-0000-0000-0000", "--config", config, "--no-start", "--skip-radio-check"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("HTTP 404") && unknown.stderr.contains("no such enrolment code"), "\(unknown.stderr)")

        let refusing = try RefusingPort()
        defer { refusing.close() }
        let closed = refusing.port
        let unreachable = try await run("bikebeacon", ["enroll", "http://127.0.0.1:\(closed)/enrol/K7QP-3MXD-9RTA-WZ4E-HN2B", "--config", config,
                                                       "--no-start", "--skip-radio-check"])
        #expect(unreachable.status == 1)
        #expect(unreachable.stderr.contains("cannot reach the server at http://127.0.0.1:\(closed)"), "\(unreachable.stderr)")

        let noCode = try await run("bikebeacon", ["enroll", server.url, "--config", config, "--no-start", "--skip-radio-check"])
        #expect(noCode.status != 0 && noCode.stderr.contains("no enrolment code"), "\(noCode.stderr)")
        #expect(try Self.files(etc).isEmpty)
    }

    /// Refusals that come before the exchange leave the code usable: the operator fixes the cause and runs it again.
    @Test func anExistingConfigIsRefusedWithoutSpendingTheCode() async throws {
        let dir = try TestValues.temporaryDirectory()
        let server = try ServerHarness(directory: dir)
        try await server.start()
        defer { server.stop() }
        let enrolment = try await server.enrolWithCode(name: "Garage")
        let config = dir.appendingPathComponent("sentinel.yaml").path
        let mine = "server:\n  url: https://other.example\n  token: bbs_mine\n"
        try mine.write(toFile: config, atomically: true, encoding: .utf8)

        let refused = try await run("bikebeacon", ["enroll", enrolment.url, "--config", config, "--no-start", "--skip-radio-check"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("already holds a sentinel's settings") && refused.stderr.contains("--replace"), "\(refused.stderr)")
        #expect(try String(contentsOfFile: config, encoding: .utf8) == mine)

        // A directory that does not exist: refused before the exchange too.
        let nowhere = try await run("bikebeacon", ["enroll", enrolment.url, "--config", dir.appendingPathComponent("missing/sentinel.yaml").path,
                                                   "--no-start", "--skip-radio-check"])
        #expect(nowhere.status == 1 && nowhere.stderr.contains("does not exist"), "\(nowhere.stderr)")

        // A radio that cannot listen (no such adapter): refused, nothing written, the code still good.
        let radio = try await run("bikebeacon", ["enroll", enrolment.url, "--config", config, "--replace", "--no-start",
                                                 "--backend", "hci", "--adapter", "hci9"])
        #expect(radio.status == 1 && radio.stderr.contains("the radio could not listen") && radio.stderr.contains("--force"), "\(radio.stderr)")
        #expect(try String(contentsOfFile: config, encoding: .utf8) == mine)

        let replaced = try await run("bikebeacon", ["enroll", enrolment.url, "--config", config, "--replace", "--no-start", "--skip-radio-check"])
        #expect(replaced.status == 0, "\(replaced.stderr)")
        #expect(try SentinelConfiguration.load(path: config, environment: [:]).token == enrolment.token)
        #expect(try Self.files(dir).filter { $0.hasPrefix("sentinel.yaml") } == ["sentinel.yaml"])
    }

    /// The package's example config (token still the placeholder) is replaced without --replace; a rotated
    /// sentinel's new code carries the new token.
    @Test func replacesThePackagesExampleAndFollowsARotation() async throws {
        let dir = try TestValues.temporaryDirectory()
        let server = try ServerHarness(directory: dir)
        try await server.start()
        defer { server.stop() }
        let first = try await server.enrolWithCode(name: "Bus stop")
        let rotated = try await server.rotateWithCode(name: "Bus stop")
        let config = dir.appendingPathComponent("sentinel.yaml").path
        try FileManager.default.copyItem(atPath: Paths.repository.appendingPathComponent("deploy/sentinel.example.yaml").path, toPath: config)

        let stale = try await run("bikebeacon", ["enroll", first.url, "--config", config, "--no-start", "--skip-radio-check"])
        #expect(stale.status == 1 && stale.stderr.contains("rotated"), "\(stale.stderr)")
        #expect(try String(contentsOfFile: config, encoding: .utf8).contains(EnrolmentPlan.placeholderToken))

        let result = try await run("bikebeacon", ["enroll", server.url, rotated.code.lowercased(), "--config", config, "--no-start", "--skip-radio-check"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try SentinelConfiguration.load(path: config, environment: [:]).token == rotated.token)
    }
}
