import Beacon
import Console
import Foundation
import Scanning
import Testing

/// `scan` and `replay` lines are read by scripts (JSON) and people (the table): both must carry
/// the frame's values exactly, whatever the digits.
struct AdvertisementOutputTests {
    /// Design §3's first vector, heard at -71 dBm.
    static func advertisement(time: Double = 1_610_017_384.5, address: BluetoothAddress? = BluetoothAddress("DC:0D:30:01:02:03")) throws -> Advertisement {
        let frame = try IBeacon.decode(manufacturerData: try #require(Hex.bytes("4c000215494e54454c4c495f524f434b535f48575075f2ffc2")))
        return Advertisement(beacon: frame.beacon, rssi: -71, measuredPower: frame.measuredPower, address: address, time: time)
    }

    @Test func jsonLineIsJSONWithTheFramesValues() throws {
        let line = AdvertisementOutput.json(try Self.advertisement())
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["uuid"] as? String == "494E5445-4C4C-495F-524F-434B535F4857")
        #expect(object["major"] as? Int == 20597)
        #expect(object["minor"] as? Int == 62207)
        #expect(object["measuredPower"] as? Int == -62)
        #expect(object["rssi"] as? Int == -71)
        #expect(object["address"] as? String == "DC:0D:30:01:02:03")
        #expect(object["time"] as? Double == 1_610_017_384.5)
    }

    @Test func unknownPowerAndAddressAreNull() throws {
        var advertisement = try Self.advertisement(address: nil)
        advertisement.measuredPower = nil
        let object = try #require(try JSONSerialization.jsonObject(with: Data(AdvertisementOutput.json(advertisement).utf8)) as? [String: Any])
        #expect(object["measuredPower"] is NSNull)
        #expect(object["address"] is NSNull)
    }

    /// Captures stamp microseconds: six digits always, leading zeros kept, no float noise.
    @Test(arguments: [(1_610_017_384.5, "1610017384.500000"), (1.000001, "1.000001"), (0, "0.000000"), (1_700_000_000.123456, "1700000000.123456")])
    func timeHasSixDigitsOfMicroseconds(_ time: Double, _ text: String) {
        #expect(AdvertisementOutput.timeText(time) == text)
    }

    /// Every value starts or ends under its heading, so the table reads as columns.
    @Test func tableRowLinesUpWithTheHeader() throws {
        let row = AdvertisementOutput.tableRow(try Self.advertisement())
        let header = AdvertisementOutput.tableHeader
        func column(_ text: String, _ name: String) throws -> Int {
            text.distance(from: text.startIndex, to: try #require(text.range(of: name)).lowerBound)
        }
        #expect(try column(row, "1610017384.500000") == (try column(header, "TIME")))
        #expect(try column(row, "DC:0D:30:01:02:03") == (try column(header, "ADDRESS")))
        #expect(try column(row, "494E5445-") == (try column(header, "UUID")))
        #expect(row.hasSuffix("-71"))
        #expect(row.count == header.count)
    }

    @Test func summaryNamesEveryCount() {
        var counts = ScanCounts()
        counts.reports = 10
        counts.iBeacons = 7
        counts.otherAdvertisements = 2
        counts.errors = 1
        #expect(AdvertisementOutput.summary(counts) == "reports read: 10, iBeacons: 7, other advertisements: 2, errors: 1")
    }
}
