import Foundation
import Testing
import TestSupport
@testable import Sentinel

/// The live sentinel (in this process, against the real server) stopped and started again while
/// a missing bike stands in range, as in the field test's power cut: one arrival, not two.
@Suite(.enabled(if: ServerHarness.isAvailable, "needs the bikebeacon-server executable (build the server target)"))
struct LiveRestartTests {
    @Test func aRestartWithTheBikeInRangeGivesNoSecondArrival() async throws {
        let scene = try await LiveScene.start(sentinel: "garage", missing: [SentinelCoreTests.missing])
        defer { scene.server.stop() }
        let (settings, radio, events) = (scene.settings, scene.radio, scene.events)

        let started = Date()
        var sentinel = Task { try await SentinelRunner.run(configuration: settings, source: .live(radio)) }
        let arrived = try await eventually(within: 60, every: .milliseconds(200)) { try await events().contains("arrived") }
        let entry = Date().timeIntervalSince(started)
        sentinel.cancel()
        _ = try? await sentinel.value
        try #require(arrived, "the bike arriving within 60 s")
        #expect(FileManager.default.fileExists(atPath: settings.stateDirectory + "/visits.json"))

        // Started again: given three times what the first entry took (at least 10 s) in range, a
        // sentinel that forgot the visit would have reported it arrived again by then.
        sentinel = Task { try await SentinelRunner.run(configuration: settings, source: .live(radio)) }
        do {
            try await Task.sleep(for: .seconds(max(10, 3 * entry)))
            radio.setAudible([])
            let departed = try await eventually(within: 150, every: .milliseconds(200)) { try await events().contains("departed") }
            #expect(departed, "the bike departing within 150 s of going silent")
        } catch {
            sentinel.cancel()
            _ = try? await sentinel.value
            throw error
        }
        sentinel.cancel()
        _ = try? await sentinel.value
        #expect(try await events().sorted() == ["arrived", "departed"])
    }
}
