import Beacon
import BikebeaconAPI
import Foundation
import ServerClient
import Testing
import TestSupport
@testable import Sentinel

/// What the reporter does with a sighting the REAL server refuses (#35): refused for its position,
/// it goes again without it and reaches the owner; refused for anything else, it is kept in the
/// outbox database and counted in `bikebeacon status`, never deleted silently.
@Suite(.enabled(if: ServerHarness.isAvailable, "needs the bikebeacon-server executable (build the server target)"))
struct RefusedSightingTests {
    static func sighting(at time: Double, place: SightingPlace) -> Sighting {
        Sighting(id: UUID(), beacon: SentinelCoreTests.missing, event: .passing, time: time, firstSeen: time - 5, lastSeen: time - 1,
                 rssi: -70, distance: 3, zone: .near, place: place)
    }

    @Test func aRefusedPositionIsDroppedAndTheSightingStillReachesTheOwner() async throws {
        let dir = try TestValues.temporaryDirectory()
        let server = try ServerHarness(directory: dir)
        let bus = try await server.enrolSentinel(name: "Bus line 12", roaming: true, replaying: false)
        let cafe = try await server.enrolSentinel(name: "Cafe", replaying: false)
        try await server.start()
        defer { server.stop() }
        let owner = try await server.ownerWithMissingBikes([SentinelCoreTests.missing])
        let now = Date().timeIntervalSince1970
        let twentyYears = 20 * 365 * 86_400.0

        // A roaming sentinel: a fix dated 20 years ahead (a GPS week rollover), a good fix, and a sighting
        // an hour ahead (the sentinel's own clock is wrong: nothing it could drop would help).
        let rolledOver = Self.sighting(at: now, place: .fix(SightingFix(latitude: -27.2108, longitude: 153.0521, accuracy: 5, time: now + twentyYears)))
        let good = Self.sighting(at: now - 10, place: .fix(SightingFix(latitude: -27.2110, longitude: 153.0522, accuracy: 5, time: now - 10)))
        let ahead = Self.sighting(at: now + 3600, place: .noFix)
        try await TestValues.withOutbox(path: dir.appendingPathComponent("bus.sqlite").path) { outbox in
            for s in [rolledOver, good, ahead] { try await outbox.append(s) }
            let reporter = Reporter(outbox: outbox, transport: HTTPSightingTransport(server: ServerConnection(baseURL: server.url, token: bus)))
            #expect(await reporter.drain() == .drained(sent: 4))
            #expect(await reporter.repaired == 1)
            #expect(await reporter.rejected == 1)
            #expect(try await outbox.count() == 0)
            let refused = try await outbox.refused()
            #expect(refused.count == 1 && refused.newestReason?.contains("ahead of the server's clock") == true, "\(refused)")
        }

        // A sentinel the server knows at a fixed place, sending a fix: refused for 'fix' twice (the
        // fix, then 'fix: none'), it lands at the enrolled place.
        let misconfigured = Self.sighting(at: now - 20, place: .fix(SightingFix(latitude: 48.8584, longitude: 2.2945, accuracy: 5, time: now - 20)))
        try await TestValues.withOutbox(path: dir.appendingPathComponent("cafe.sqlite").path) { outbox in
            try await outbox.append(misconfigured)
            let reporter = Reporter(outbox: outbox, transport: HTTPSightingTransport(server: ServerConnection(baseURL: server.url, token: cafe)))
            #expect(await reporter.drain() == .drained(sent: 3))
            #expect(await reporter.repaired == 2)
            #expect(await reporter.rejected == 0)
            #expect(try await outbox.count() == 0)
        }

        let delivered = Dictionary(uniqueKeysWithValues: try await server.sightings(owner: owner.token, bikes: owner.bikes).map { ($0.clientId, $0) })
        func key(_ s: Sighting) -> String { s.id.uuidString.lowercased() }
        #expect(delivered.count == 3)
        #expect(delivered[key(rolledOver)]?.fix == "none" && delivered[key(rolledOver)]?.latitude == nil)
        #expect(delivered[key(good)]?.fix == "gps" && delivered[key(good)]?.latitude == -27.211)
        #expect(delivered[key(misconfigured)]?.fix == nil && delivered[key(misconfigured)]?.latitude == 52.3676)
        #expect(delivered[key(ahead)] == nil)
    }

    /// The status the operator reads says how many were refused and kept, and why the last one was.
    @Test func theStatusSaysWhatWasRefusedAndKept() {
        var status = SentinelStatus(pid: 1, startedAt: "2026-11-21T10:00:00.000Z", updatedAt: "2026-11-21T10:05:00.000Z",
                                    advertisements: 10, iBeacons: 10, matches: 3, sightingsCreated: 3, sightingsDelivered: 2,
                                    sightingsRejected: 1, outboxDepth: 0, missingListVersion: 1, missingListBikes: 1,
                                    missingListAgeSeconds: 1, reporterFailures: 0, alarms: 0)
        status.sightingsRepaired = 4
        status.refusedKept = 1
        status.newestRefusal = "'time' is 3600 s ahead of the server's clock"
        #expect(status.report.contains("1 refused by the server, 4 sent again without a refused position"))
        #expect(status.report.contains("refused sightings kept: 1 (newest: 'time' is 3600 s ahead of the server's clock;"))
        #expect(status.prometheus.split(separator: "\n").contains("bikebeacon_sightings_refused_kept 1.0"))
        #expect(status.prometheus.split(separator: "\n").contains("bikebeacon_sightings_repaired_total 4"))
    }
}
