import Beacon
import BikebeaconAPI
import Foundation
import Proximity
import Registry
@testable import Sentinel
import TestSupport

/// Beacons from the design notes' real vectors, and helpers to make sightings and temp paths.
enum TestValues {
    static let intel = BeaconID("494E5445-4C4C-495F-524F-434B535F4857:20597:62207")!
    static let blueCharm = BeaconID("426C7565-4368-6172-6D42-6561636F6E73:3838:4949")!
    static let other = BeaconID("B5B182C7-EAB1-4988-AA99-B5C1517008D9:1:25626")!

    static let t0 = 1_763_762_000.0

    static func sighting(_ event: SightingEvent, beacon: BeaconID = intel, at time: Double = t0, rssi: Int = -70) -> Sighting {
        Sighting(id: UUID(), beacon: beacon, event: event, time: time, firstSeen: time - 30, lastSeen: time,
                 rssi: rssi, distance: 2.5, zone: .near)
    }

    static func bike(_ beacon: BeaconID, _ make: String = "Gazelle") -> MissingBike {
        MissingBike(beacon: beacon, description: BikeDescription(make: make, model: "Ultimate", colour: "green"))
    }

    /// A fresh directory for one test, removed when the test process exits.
    static func temporaryDirectory() throws -> URL { try TestDirectory.fresh("sentinel-tests") }
}

extension TestValues {
    /// Runs `body` with an outbox in a fresh directory (or at `path`), closing it however `body` ends:
    /// SQLiteNIO insists on every connection being closed.
    static func withOutbox(path: String? = nil, maxRows: Int = 10_000, _ body: (Outbox) async throws -> Void) async throws {
        let path = try path ?? temporaryDirectory().appendingPathComponent("outbox.sqlite").path
        let outbox = try await Outbox.open(path: path, maxRows: maxRows)
        do {
            try await body(outbox)
        } catch {
            try await outbox.close()
            throw error
        }
        try await outbox.close()
    }
}
