import Beacon
import Benchmarks
import Foundation
import Testing

/// The sentinel benchmark's street capture must be what it claims (every advertisement an iBeacon
/// of the right tag, in order, 1 % missing), and the decode benchmark's tshark baseline must count
/// iBeacon entries the way `captures/SOURCE.txt` did.
struct SyntheticStreetTests {
    @Test func theStreetCaptureReadsBackAsTheTagsItClaims() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bikebeacon-street-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("street.btsnoop").path
        let missing = try SyntheticStreet.write(to: path, advertisements: 1_000, beacons: 200)

        let replayed = replay([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        #expect(replayed.error == nil)
        #expect(replayed.counts.iBeacons == 1_000 && replayed.counts.errors == 0)
        #expect(replayed.advertisements.map(\.beacon) == (0..<1_000).map { SyntheticStreet.beacon($0 % 200) })
        #expect(replayed.advertisements.allSatisfy { (-89 ... -50).contains($0.rssi) && $0.measuredPower == -59 })
        #expect(missing.map(\.beacon) == [SyntheticStreet.beacon(0), SyntheticStreet.beacon(100)])
    }

    @Test func tsharkLinesCountOnlyIBeaconEntries() {
        // `-e btcommon.eir_ad.entry.data` prints each AD entry's data (after a company id), comma-separated.
        let line = Array("06,0215494e54454c4c495f524f434b535f48575075f2ffc2,0215b5b182c7eab14988aa99b5c1517008d90001641ac5".utf8)
        #expect(Tshark.iBeaconEntries(inLine: line[...]) == 2)
        #expect(Tshark.iBeaconEntries(inLine: Array("06,1bff0302".utf8)[...]) == 0)
    }
}
