import Beacon
import BikebeaconAPI
import Foundation
import Testing
import TestSupport
@testable import Sentinel

/// "Find my tag" end to end: the live sentinel (in this process) hears a real capture at ten times
/// its pace (Tests/Fixtures/captures/govee-h5100.btsnoop, six Govee iBeacons, MIT, see SOURCE.txt)
/// and the real server stands between it and its owner.
@Suite(.enabled(if: ServerHarness.isAvailable, "needs the bikebeacon-server executable (build the server target)"))
struct FindMyTagTests {
    @Test func theOwnerSeesTheTagsTheirSentinelHearsOnlyWhileAsking() async throws {
        let capture = try await SentinelCoreTests.advertisements()
        let inCapture = Set(capture.map(\.beacon))
        let dir = try TestValues.temporaryDirectory()
        let server = try ServerHarness(directory: dir)
        try await server.start()
        defer { server.stop() }
        let owner = try await server.ownerWithMissingBikes([SentinelCoreTests.own], markMissing: false)
        let token = try await server.enrolSentinel(name: "Home", owner: "owner@example.org")
        let (listed, body) = try await server.request(.GET, "/v1/account/sentinels", token: owner.token)
        let home = try #require(try JSONDecoder().decode(HomeSentinelList.self, from: body).sentinels.first, "\(listed)")
        func nearby() async throws -> NearbyBeacons {
            let (status, body) = try await server.request(.GET, "/v1/sentinels/\(home.id)/nearby", token: owner.token)
            guard status == 200 else { throw HarnessError("nearby: \(status)") }
            return try JSONDecoder().decode(NearbyBeacons.self, from: body)
        }

        var settings = SentinelConfiguration(serverURL: server.url, token: token, stateDirectory: dir.appendingPathComponent("state").path)
        settings.requestTimeout = 2
        let sentinel = Task { try await SentinelRunner.run(configuration: settings, source: .live(PacedCapture(capture, speed: 10))) }
        defer { sentinel.cancel() }
        try await Task.sleep(for: .seconds(4))
        #expect(try await nearby().beacons.isEmpty, "nothing is reported before the owner asks")

        // Asked: the tags come within a report or two, loudest first, the one on the owner's bike named.
        let asked = ContinuousClock.now
        #expect(try await server.request(.POST, "/v1/sentinels/\(home.id)/listen", token: owner.token).0 == 202)
        let heard = try await eventually(within: 15, every: .milliseconds(100)) { try await nearby().beacons.count >= 3 }
        let latency = ContinuousClock.now - asked
        let tags = try await nearby().beacons
        #expect(heard, "three of the capture's tags reported within 15 s of asking (\(tags.count))")
        print("find my tag: owner asks -> three tags listed: \(latency)")
        #expect(Set(tags.map(\.beacon)).isSubset(of: inCapture), "only tags that are in the capture")
        #expect(tags.map(\.rssi) == tags.map(\.rssi).sorted(by: >))
        for tag in tags {
            let recorded = capture.filter { $0.beacon == tag.beacon }.map(\.rssi)
            #expect((recorded.min() ?? 0)...(recorded.max() ?? 0) ~= tag.rssi, "\(tag.beacon)'s median \(tag.rssi) dBm is within what the capture holds")
        }
        let ownTag = try await eventually(within: 40, every: .milliseconds(200)) {
            try await nearby().beacons.contains { $0.beacon == SentinelCoreTests.own && $0.bike == "bike 0" }
        }
        #expect(ownTag, "the tag on the owner's bike is named by the bike")

        // Done: the sentinel stops reporting; asked again, it reports again (it went back to waiting for the owner).
        #expect(try await server.request(.DELETE, "/v1/sentinels/\(home.id)/listen", token: owner.token).0 == 204)
        try await Task.sleep(for: .seconds(4))
        #expect(try await nearby().beacons.isEmpty)
        #expect(try await server.request(.POST, "/v1/sentinels/\(home.id)/listen", token: owner.token).0 == 202)
        #expect(try await eventually(within: 15, every: .milliseconds(100)) { try await nearby().beacons.count >= 1 },
                "asked again, it reports again")
        sentinel.cancel()
        _ = try? await sentinel.value
    }
}
