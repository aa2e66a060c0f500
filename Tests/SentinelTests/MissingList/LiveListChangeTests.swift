import Beacon
import Foundation
import NIOHTTP1
import Scanning
import Testing
import TestSupport
@testable import Sentinel

/// The live sentinel (in this process, wall clock, list refreshed every second) against the real
/// server while the owner changes the missing list.
@Suite(.enabled(if: ServerHarness.isAvailable, "needs the bikebeacon-server executable (build the server target)"))
struct LiveListChangeTests {
    @Test func listChangesOnTheServerReachARunningSentinelWithinARefresh() async throws {
        let a = SentinelCoreTests.missing, b = SentinelCoreTests.own
        let dir = try TestValues.temporaryDirectory()
        let server = try ServerHarness(directory: dir)
        let token = try await server.enrolSentinel(name: "corner")
        try await server.start()
        defer { server.stop() }
        let owner = try await server.ownerWithMissingBikes([a, b], markMissing: false)
        let (marked, _) = try await server.request(.POST, "/v1/bikes/\(owner.bikes[0])/missing", token: owner.token, json: [String: Any]())
        #expect(marked == 200)

        var settings = SentinelConfiguration(serverURL: server.url, token: token, stateDirectory: dir.appendingPathComponent("state").path)
        settings.listRefreshInterval = 1
        settings.requestTimeout = 2
        let radio = FakeRadio()
        radio.setAudible([a, b])
        let sentinel = Task { try await SentinelRunner.run(configuration: settings, source: .live(radio)) }
        // Stopped and awaited on every path: a sentinel left running after a failure would go on
        // using its outbox while the next tests run.
        do {
            try await scenario(server: server, owner: owner, radio: radio)
        } catch {
            sentinel.cancel()
            _ = try? await sentinel.value
            throw error
        }
        sentinel.cancel()
        _ = try? await sentinel.value
    }

    /// The deadlines are generous: each is met in a few seconds, but the whole suite shares two
    /// cores, and an event that never comes fails all the same.
    private func scenario(server: ServerHarness, owner: (token: String, bikes: [String]), radio: FakeRadio) async throws {
        func events(_ bike: Int) async throws -> [String] {
            try await server.sightings(owner: owner.token, bikes: [owner.bikes[bike]]).map(\.event)
        }

        try #require(try await eventually(within: 60, every: .milliseconds(200)) { try await events(0).contains("arrived") }, "bike A arriving within 60 s")
        #expect(try await events(1).isEmpty)

        // B reported missing while the sentinel runs: only a refresh of the list can bring its
        // arrival (the list is refreshed every second here).
        _ = try await server.request(.POST, "/v1/bikes/\(owner.bikes[1])/missing", token: owner.token, json: [String: Any]())
        try #require(try await eventually(within: 30, every: .milliseconds(200)) { try await events(1).contains("arrived") }, "bike B arriving within 30 s")

        // A recovered, then both wheeled away: only B departs.
        _ = try await server.request(.POST, "/v1/bikes/\(owner.bikes[0])/recovered", token: owner.token, json: [String: Any]())
        try await Task.sleep(for: .seconds(2.5))
        let aBefore = try await events(0)
        radio.setAudible([])
        try #require(try await eventually(within: 90, every: .milliseconds(200)) { try await events(1).contains("departed") }, "bike B departing within 90 s")
        try await Task.sleep(for: .seconds(1))
        #expect(try await events(0) == aBefore)
        #expect(!aBefore.contains("departed"))
    }
}
