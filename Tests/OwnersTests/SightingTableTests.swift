import Beacon
import BikebeaconAPI
import Owners
import Testing

/// The table the demo prints for the owner: what `bikebeacon demo` shows a newcomer.
struct SightingTableTests {
    static let beacon = BeaconID("494E5445-4C4C-495F-524F-434B535F4857:20596:25984")!

    static func record(_ event: String, _ time: String, zone: String, distance: Double?) -> SightingRecord {
        SightingRecord(id: time, clientId: time, bikeId: "b1", beacon: beacon, event: event, time: time, firstSeen: time, lastSeen: time,
                       rssi: -67, distance: distance, zone: zone, latitude: 52.0907, longitude: 5.1214,
                       sentinel: "Cafe Rosa, Utrecht", receivedAt: time)
    }

    @Test func rowsLineUpUnderTheHeader() {
        let table = SightingTable.render([
            Self.record("arrived", "2024-01-27T20:54:08.993Z", zone: "far", distance: 12.4),
            Self.record("present", "2024-01-27T20:56:08.000Z", zone: "near", distance: 0.8),
            Self.record("departed", "2024-01-27T20:59:41.500Z", zone: "unknown", distance: nil),
        ]).split(separator: "\n").map(String.init)
        #expect(table.count == 4)
        #expect(table[1].hasPrefix("  2024-01-27 20:54:08 arrived   far        12 m     -67   Cafe Rosa, Utrecht"))
        #expect(table[2].contains(" near       0.80 m "))
        #expect(table[3].contains(" unknown    ?        "))
        let placeColumn = table[0].range(of: "PLACE").map { table[0].distance(from: table[0].startIndex, to: $0.lowerBound) }
        #expect(table.dropFirst().allSatisfy { row in
            row.range(of: "Cafe Rosa").map { row.distance(from: row.startIndex, to: $0.lowerBound) } == placeColumn
        })
    }

    @Test func summarySaysWhereWhenAndHowClose() {
        let sightings = [
            Self.record("arrived", "2024-01-27T20:54:08.993Z", zone: "far", distance: 12.4),
            Self.record("present", "2024-01-27T20:56:08.000Z", zone: "near", distance: 2.1),
            Self.record("departed", "2024-01-27T20:59:41.500Z", zone: "far", distance: 9),
        ]
        #expect(SightingTable.summary(sightings)
                == "at Cafe Rosa, Utrecht (52.0907, 5.1214) from 2024-01-27 20:54:08 to 2024-01-27 20:59:41 UTC, at closest near")
        #expect(SightingTable.summary([]) == nil)
    }
}
