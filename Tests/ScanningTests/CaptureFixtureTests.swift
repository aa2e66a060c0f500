import Beacon
import Captures
import Foundation
import Scanning
import Testing
import TestSupport

/// The real captures give exactly the iBeacon reports an independent decoder (tshark) counted.
struct CaptureFixtureTests {
    struct Fixture: Sendable, CustomTestStringConvertible {
        var name: String, format: CaptureFormat, iBeacons: Int
        /// First and last iBeacon report per tshark: epoch time, address, RSSI.
        var first: (time: Double, address: String, rssi: Int)
        var last: (time: Double, address: String, rssi: Int)
        var testDescription: String { name }
    }

    static let fixtures = [
        Fixture(name: "govee-inout.pcap", format: .pcap, iBeacons: 2,
                first: (1_701_381_701.507483, "A4:C1:38:05:C7:A1", -65), last: (1_701_381_701.695587, "C2:35:33:30:25:50", -68)),
        Fixture(name: "govee-h5100.btsnoop", format: .btsnoop, iBeacons: 99,
                first: (1_706_388_848.993381, "D0:35:33:33:44:03", -52), last: (1_706_389_234.893619, "E3:8E:C8:C1:98:9A", -37)),
        Fixture(name: "wimpi5-h5105.pcapng", format: .pcapng, iBeacons: 35,
                first: (1_779_233_192.849965, "A4:C1:38:0D:42:7B", -60), last: (1_779_233_283.128865, "D3:21:C4:06:25:0D", -52)),
    ]

    @Test(arguments: fixtures)
    func iBeaconCountsMatchTheIndependentDecoder(_ f: Fixture) throws {
        let r = replay(try fixtureBytes(f.name))
        #expect(r.error == nil)
        #expect(r.format == f.format)
        #expect(r.advertisements.count == f.iBeacons)
        #expect(r.counts.iBeacons == f.iBeacons)
        #expect(r.counts.errors == 0)
        #expect(r.counts.reports == r.counts.iBeacons + r.counts.otherAdvertisements)
        #expect(r.counts.otherAdvertisements > 0)
    }

    @Test(arguments: fixtures)
    func firstAndLastReportsMatchTsharkTimeAddressAndRSSI(_ f: Fixture) throws {
        let ads = replay(try fixtureBytes(f.name)).advertisements
        let first = try #require(ads.first), last = try #require(ads.last)
        for (got, want) in [(first, f.first), (last, f.last)] {
            #expect(abs(got.time - want.time) < 1e-6)
            #expect(got.address?.description == want.address)
            #expect(got.rssi == want.rssi)
        }
        #expect(ads.map(\.time) == ads.map(\.time).sorted(), "reports come out in capture order")
    }

    /// btmon -w writes btsnoop's monitor datalink (2001): every controller's packets, each record's
    /// type in its flags, between btmon's own notes (see SOURCE.txt; tshark counts 111 reports).
    @Test func btmonMonitorCaptureGivesTheReportsTsharkCounted() throws {
        let r = replay(try fixtureBytes("field-btmon.btsnoop"))
        #expect(r.error == nil)
        #expect(r.format == .btsnoop)
        #expect(r.advertisements.count == 111)
        #expect(r.counts.errors == 0)
        let first = try #require(r.advertisements.first), last = try #require(r.advertisements.last)
        #expect(abs(first.time - 1_795_590_284.345249) < 1e-6)
        #expect(abs(last.time - 1_795_590_295.828306) < 1e-6)
        for ad in [first, last] {
            #expect(ad.address == BluetoothAddress("00:AA:01:01:00:01"))
            #expect(ad.rssi == -60)
            #expect(ad.measuredPower == -59)
            #expect(ad.beacon == BeaconID("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:4660:22136"))
        }
    }

    @Test func exampleReportFieldByField() throws {
        let ad = try #require(replay(try fixtureBytes("govee-inout.pcap")).advertisements.first)
        #expect(ad.address == BluetoothAddress("A4:C1:38:05:C7:A1"))
        #expect(ad.rssi == -65)
        #expect(ad.beacon.uuid.uuidString == "494E5445-4C4C-495F-524F-434B535F4857")
        #expect(ad.beacon.major == 20597)
        #expect(ad.beacon.minor == 62207)
        #expect(ad.measuredPower == -62)
        // 2023-11-30 21:48:21 UTC, the day in the capture's original name (…11_30…).
        let date = Date(timeIntervalSince1970: ad.time)
        let day = Calendar(identifier: .gregorian).dateComponents(in: try #require(TimeZone(identifier: "UTC")), from: date)
        #expect((day.year, day.month, day.day) == (2023, 11, 30))
    }

    @Test func formatIsDetectedByContentNotName() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bikebeacon-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let misnamed = dir.appendingPathComponent("capture.pcap")
        try Data(try fixtureBytes("govee-h5100.btsnoop")).write(to: misnamed)
        var reader = try CaptureReader(FileBytes(path: misnamed.path))
        #expect(reader.format == .btsnoop)
        #expect(try reader.next() != nil)
    }
}
