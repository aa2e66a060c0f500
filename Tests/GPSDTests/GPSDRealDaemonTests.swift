import Durable
import Foundation
import Testing
import TestSupport
@testable import GPSD

/// The client against Debian's real gpsd, fed a recorded walk (Tests/Fixtures/gpsd/haicom-305N.log)
/// by gpsfake, and killed and started again mid-run.
@Suite(.serialized) struct GPSDRealDaemonTests {
    /// A fix's coordinates to a micro-degree (about 0.1 m): gpsd of any version reads the same
    /// NMEA into the same coordinates.
    struct Point: Hashable {
        var latitude: Int
        var longitude: Int

        init?(_ position: GPSDPosition) {
            guard position.hasPosition, let latitude = position.latitude, let longitude = position.longitude else { return nil }
            self.latitude = Int((latitude * 1e6).rounded())
            self.longitude = Int((longitude * 1e6).rounded())
        }
    }

    @Test func everyFixIsOnTheRecordedTrackAcrossAGpsdRestart() async throws {
        try await GPSFake.oneAtATime {
            // The track as gpsd's own regression output reads the same log.
            let track = Set(try GPSDProtocolTests.positions("haicom-305N.json").compactMap(Point.init))
            #expect(track.count > 50)
            let gpsd = try await GPSFake.started(log: Paths.fixture("gpsd/haicom-305N.log").path)
            var configuration = GPSDClientConfiguration(host: "127.0.0.1", port: gpsd.port)
            configuration.backoff = Backoff(initial: 0.1, maximum: 0.5)
            let client = GPSDClient(configuration: configuration)
            let received = GPSDClientTests.Positions()
            // High priority: in a full parallel run the client's task once waited behind the suite's queued tests for
            // 130 s, and never connected before the wait below timed out (0 connections; gpsd had the log's device).
            let task = Task(priority: .high) { await client.run { position in received.box.withLockedValue { $0.append(position) } } }
            defer { task.cancel() }
            func fixes() -> Int { received.all.filter(\.hasPosition).count }
            /// What a wait that timed out saw: which side stopped.
            func seen() -> String {
                "\(fixes()) fixes in \(received.all.count) reports over \(client.connections) connections, \(client.skippedLines) lines skipped; \(gpsd.state)"
            }

            // Generous waits: in a full parallel test run gpsfake (Python) and the cooperative pool are
            // slow, and gpsd may reset a client while gpsfake settles (seen once); both only delay fixes.
            #expect(try await eventually(within: 90) { fixes() >= 30 }, "\(seen())")
            let connectionsBeforeRestart = client.connections
            // gpsd dies (and its port with it), then comes back on the same port.
            gpsd.kill()
            let beforeRestart = fixes()
            try await gpsd.restart()
            #expect(try await eventually(within: 90) { fixes() >= beforeRestart + 30 }, "after the restart: \(seen())")
            #expect(client.connections > connectionsBeforeRestart)
            task.cancel()
            await task.value
            gpsd.kill()

            let points = received.all.compactMap(Point.init)
            let offTrack = points.filter { !track.contains($0) }
            #expect(offTrack.isEmpty, "\(offTrack.count) of \(points.count) fixes are not on the recorded track, e.g. \(offTrack.prefix(3))")
            #expect(client.skippedLines == 0)
        }
    }
}
