import Beacon
import BikebeaconAPI
import Foundation
import Testing
import TestSupport
@testable import Sentinel

/// The held-out drive of #35, replayed: a roaming sentinel whose GPS reports a date years ahead.
/// Debian's REAL gpsd, fed by gpsfake a real recording whose receiver dates are 2014 (Tests/Fixtures/gpsd/
/// haicom-305N-2014.log), reports its fixes as 2033 (gpsd's 1024-week correction). The live sentinel
/// (in this process) hears a real capture at ten times its pace and reports to the REAL server. Every
/// pass must reach the owner with its position: none refused, none without a fix, none lost.
@Suite(.serialized, .enabled(if: ServerHarness.isAvailable, "needs the bikebeacon-server executable (build the server target)"))
struct GPSRolloverTests {
    @Test func everyPassReachesTheOwnerWithItsPositionWhenTheReceiverDatesFixesYearsAhead() async throws {
        try await GPSFake.oneAtATime {
            let gpsd = try await GPSFake.started(log: Paths.fixture("gpsd/haicom-305N-2014.log").path)
            defer { gpsd.kill() }
            let dir = try TestValues.temporaryDirectory()
            let server = try ServerHarness(directory: dir)
            // Live: the server holds this sentinel to its enrolment and its clock, with no allowance for replays.
            let token = try await server.enrolSentinel(name: "Bus line 12", roaming: true, replaying: false)
            try await server.start()
            defer { server.stop() }
            let owner = try await server.ownerWithMissingBikes([SentinelCoreTests.missing])

            let state = dir.appendingPathComponent("state")
            var settings = SentinelConfiguration(serverURL: server.url, token: token, stateDirectory: state.path)
            settings.requestTimeout = 2
            settings.location = LocationSettings(source: .gpsd(host: "127.0.0.1", port: gpsd.port), maxFixAge: 10, passInterval: 5)
            let capture = try await SentinelCoreTests.advertisements()
            let sentinel = Task { try await SentinelRunner.run(configuration: settings, source: .live(PacedCapture(capture, speed: 10)), drainTimeout: 10) }
            defer { sentinel.cancel() }
            let delivered = try await eventually(within: 120, every: .milliseconds(500)) {
                try await server.sightings(owner: owner.token, bikes: owner.bikes).count >= 4
            }
            sentinel.cancel()
            _ = try? await sentinel.value

            let sightings = try await server.sightings(owner: owner.token, bikes: owner.bikes)
            #expect(delivered, "four passes reached the owner within 120 s (\(sightings.count))")
            #expect(sightings.allSatisfy { $0.event == "passing" })
            let placed = sightings.filter { $0.fix == "gps" && $0.latitude.map { abs($0 + 27.21) < 0.01 } == true }
            #expect(placed.count == sightings.count, "every pass carries the recorded walk's position: \(sightings.map { "\($0.fix ?? "-") \($0.latitude ?? .nan)" })")
            // Nothing was refused, so nothing was dropped or kept back; what is still queued has its position too.
            var refused = (count: -1, newestReason: String?.none)
            var queued: [Sighting] = []
            try await TestValues.withOutbox(path: state.appendingPathComponent("outbox.sqlite").path) { outbox in
                refused = try await outbox.refused()
                queued = try await outbox.peek(limit: 1000)
            }
            #expect(refused.count == 0, "refused: \(refused.newestReason ?? "")")
            #expect(queued.allSatisfy { if case .fix = $0.place { true } else { false } })
        }
    }
}
