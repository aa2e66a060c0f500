import Foundation
import Testing
import TestSupport
@testable import Sentinel

/// Time the scanner could not hear is not a tag's absence: the guest's bluetoothd SIGKILL left the
/// sentinel deaf for a minute, and it reported a missing bike that never moved as departed, then as
/// arrived again. Against the real server, in this process.
@Suite(.enabled(if: ServerHarness.isAvailable, "needs the bikebeacon-server executable (build the server target)"))
struct DeafScannerTests {
    @Test func aDeafStretchLongerThanTheAbsenceTimeoutIsNoDeparture() async throws {
        let scene = try await LiveScene.start(sentinel: "cafe", missing: [SentinelCoreTests.missing])
        defer { scene.server.stop() }
        let radio = scene.radio
        func visits() async throws -> [String] { try await scene.events().filter { $0 != "present" } }

        let sentinel = Task { try await SentinelRunner.run(configuration: scene.settings, source: .live(radio)) }
        defer { sentinel.cancel() }
        let arrived = try await eventually(within: 60, every: .milliseconds(200)) { try await visits().contains("arrived") }
        try #require(arrived, "the bike arriving within 60 s")

        // Deaf for twice the absence timeout of a tag heard every 0.2 s (10 s), then hearing it again.
        radio.setDeaf(true)
        try await Task.sleep(for: .seconds(20))
        radio.setDeaf(false)
        try await Task.sleep(for: .seconds(5))
        #expect(try await visits() == ["arrived"], "no departure while deaf, no second arrival after")

        // The same silence while listening is an absence: the test could tell.
        radio.setAudible([])
        let departed = try await eventually(within: 60, every: .milliseconds(200)) { try await visits().contains("departed") }
        #expect(departed, "a silence the radio heard is a departure")
        #expect(try await visits().sorted() == ["arrived", "departed"])
    }
}
