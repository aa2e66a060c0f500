import Foundation
import Testing
import TestSupport
@testable import Sentinel

/// The live sentinel (in this process, against the real server) stopped and started again while
/// a missing bike stands in range, as in the field test's power cut: one arrival, not two.
@Suite(.enabled(if: ServerHarness.isAvailable, "needs the bikebeacon-server executable (build the server target)"))
struct LiveRestartTests {
    @Test func aRestartWithTheBikeInRangeGivesNoSecondArrival() async throws {
        let bike = SentinelCoreTests.missing
        let dir = try TestValues.temporaryDirectory()
        let server = try ServerHarness(directory: dir)
        let token = try await server.enrolSentinel(name: "garage")
        try await server.start()
        defer { server.stop() }
        let owner = try await server.ownerWithMissingBikes([bike])
        var settings = SentinelConfiguration(serverURL: server.url, token: token, stateDirectory: dir.appendingPathComponent("state").path)
        settings.requestTimeout = 2
        let radio = FakeRadio()
        radio.setAudible([bike])
        func events() async throws -> [String] { try await server.sightings(owner: owner.token, bikes: owner.bikes).map(\.event) }

        let started = Date()
        var sentinel = Task { try await SentinelRunner.run(configuration: settings, source: .live(radio)) }
        let arrived = try await eventually(within: 60, every: .milliseconds(200)) { try await events().contains("arrived") }
        let entry = Date().timeIntervalSince(started)
        sentinel.cancel()
        _ = try? await sentinel.value
        try #require(arrived, "the bike arriving within 60 s")
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("state/visits.json").path))

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
