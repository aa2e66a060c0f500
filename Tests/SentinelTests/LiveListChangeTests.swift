import Beacon
import Foundation
import NIOHTTP1
import Scanning
import Testing
import TestSupport
@testable import Sentinel

/// A radio stand-in: advertises the beacons currently "in range" every 0.2 s (one batch), stamped with the
/// wall clock, like a live scanner.
final class FakeRadio: Scanning.Scanner, @unchecked Sendable {
    private let lock = NSLock()
    private var audible: Set<BeaconID> = []

    func setAudible(_ beacons: Set<BeaconID>) { lock.withLock { audible = beacons } }

    func advertisementBatches() -> AsyncThrowingStream<[Advertisement], any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                while !Task.isCancelled {
                    let heard = self.lock.withLock({ self.audible }).map { beacon in
                        Advertisement(beacon: beacon, rssi: -62, measuredPower: -59, address: nil, time: Date().timeIntervalSince1970)
                    }
                    if !heard.isEmpty { continuation.yield(heard) }
                    try? await Task.sleep(for: .milliseconds(200))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    func counts() async -> ScanCounts { ScanCounts() }
}

/// The live sentinel (in this process, wall clock, list refreshed every second) against the real
/// server while the owner changes the missing list.
@Suite(.enabled(if: ServerHarness.isAvailable, "needs the bikebeacon-server executable (build the server target)"))
struct LiveListChangeTests {
    @Test func listChangesOnTheServerReachARunningSentinelWithinARefresh() async throws {
        let a = SentinelCoreTests.missing, b = SentinelCoreTests.own
        let dir = try TestValues.temporaryDirectory()
        let server = try ServerHarness(directory: dir)
        let token = try server.enrolSentinel(name: "corner")
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
        defer { sentinel.cancel() }

        func events(_ bike: Int) async throws -> [String] {
            try await server.sightings(owner: owner.token, bikes: [owner.bikes[bike]]).map(\.event)
        }
        func waitFor(_ what: String, seconds: Double, _ condition: () async throws -> Bool) async throws {
            let deadline = Date().addingTimeInterval(seconds)
            while try await !condition() {
                guard Date() < deadline else { throw HarnessError("\(what) did not happen within \(Int(seconds)) s") }
                try await Task.sleep(for: .milliseconds(200))
            }
        }

        try await waitFor("bike A arriving", seconds: 15) { try await events(0).contains("arrived") }
        #expect(try await events(1).isEmpty)

        // B reported missing while the sentinel runs: picked up by the next refresh.
        let markedB = Date()
        _ = try await server.request(.POST, "/v1/bikes/\(owner.bikes[1])/missing", token: owner.token, json: [String: Any]())
        try await waitFor("bike B arriving", seconds: 15) { try await events(1).contains("arrived") }
        #expect(Date().timeIntervalSince(markedB) < 10)

        // A recovered, then both wheeled away: only B departs.
        _ = try await server.request(.POST, "/v1/bikes/\(owner.bikes[0])/recovered", token: owner.token, json: [String: Any]())
        try await Task.sleep(for: .seconds(2.5))
        let aBefore = try await events(0)
        radio.setAudible([])
        try await waitFor("bike B departing", seconds: 40) { try await events(1).contains("departed") }
        try await Task.sleep(for: .seconds(1))
        #expect(try await events(0) == aBefore)
        #expect(!aBefore.contains("departed"))
        sentinel.cancel()
        _ = try? await sentinel.value
    }
}
