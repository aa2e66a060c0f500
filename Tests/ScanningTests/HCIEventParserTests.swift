import Beacon
import HCI
import Scanning
import Testing

/// HCI event vectors built from the Core spec layouts, with a real iBeacon payload (design §3).
struct HCIEventParserTests {
    static let iBeaconData = IBeacon.advertisingData(
        for: BeaconID("494E5445-4C4C-495F-524F-434B535F4857:20597:62207")!, measuredPower: -62)
    /// A4:C1:38:05:C7:A1 as HCI carries it, least significant byte first.
    static let wireAddress: [UInt8] = [0xA1, 0xC7, 0x05, 0x38, 0xC1, 0xA4]

    static func legacyReport(eventType: UInt8 = 0, data: [UInt8], rssi: Int8) -> [UInt8] {
        [eventType, 0x00] + wireAddress + [UInt8(data.count)] + data + [UInt8(bitPattern: rssi)]
    }

    static func metaEvent(_ subevent: UInt8, reports: [[UInt8]]) -> [UInt8] {
        let params = [subevent, UInt8(reports.count)] + reports.flatMap { $0 }
        return [0x04, 0x3E, UInt8(params.count)] + params
    }

    /// Event_Type (2), Address_Type, Address (6), Primary_PHY, Secondary_PHY, SID, TX_Power, RSSI,
    /// Periodic_Advertising_Interval (2), Direct_Address_Type, Direct_Address (6), Data_Length, Data.
    static func extendedReport(eventType: UInt16, addressType: UInt8 = 0x01, txPower: Int8, rssi: Int8, data: [UInt8]) -> [UInt8] {
        [UInt8(eventType & 0xFF), UInt8(eventType >> 8), addressType] + wireAddress
            + [0x01, 0x00, 0xFF, UInt8(bitPattern: txPower), UInt8(bitPattern: rssi), 0x00, 0x00, 0x00]
            + [UInt8](repeating: 0, count: 6) + [UInt8(data.count)] + data
    }

    func decode(_ packet: [UInt8], time: Double = 1_700_000_000.25) -> (ads: [Advertisement], counts: ScanCounts, error: HCIParseError?) {
        var decoder = AdvertisementDecoder()
        var ads: [Advertisement] = []
        let error = decoder.decode(h4: packet[...], time: time) { ads.append($0) }
        return (ads, decoder.counts, error)
    }

    @Test func legacyReportBecomesAnAdvertisement() throws {
        let r = decode(Self.metaEvent(0x02, reports: [Self.legacyReport(data: Self.iBeaconData, rssi: -65)]))
        let ad = try #require(r.ads.first)
        #expect(r.ads.count == 1)
        #expect(ad.address == BluetoothAddress("A4:C1:38:05:C7:A1"))
        #expect(ad.rssi == -65)
        #expect(ad.beacon.description == "494E5445-4C4C-495F-524F-434B535F4857:20597:62207")
        #expect(ad.measuredPower == -62)
        #expect(ad.time == 1_700_000_000.25)
    }

    @Test func severalReportsInOneEventAreAllCounted() {
        let other: [UInt8] = [0x02, 0x01, 0x06, 0x03, 0xFF, 0x59, 0x00]
        let r = decode(Self.metaEvent(0x02, reports: [
            Self.legacyReport(data: Self.iBeaconData, rssi: -70),
            Self.legacyReport(data: other, rssi: -40),
            Self.legacyReport(eventType: 4, data: Self.iBeaconData, rssi: -71),
        ]))
        #expect(r.ads.map(\.rssi) == [-70, -71])
        #expect(r.counts.reports == 3)
        #expect(r.counts.iBeacons == 2)
        #expect(r.counts.otherAdvertisements == 1)
        #expect(r.error == nil)
    }

    @Test(arguments: [Int8(127), -128, 21])
    func rssiNotAvailableOrOutOfRangeIsNotAReading(_ rssi: Int8) {
        let r = decode(Self.metaEvent(0x02, reports: [Self.legacyReport(data: Self.iBeaconData, rssi: rssi)]))
        #expect(r.ads.isEmpty)
        #expect(r.counts.reports == 1)
        #expect(r.counts.otherAdvertisements == 1)
    }

    @Test func extendedReportWithLegacyPDU() throws {
        // Bit 4 = legacy PDU, bits 0/1 connectable+scannable: an ADV_IND seen through the extended event.
        let event = Self.metaEvent(0x0D, reports: [Self.extendedReport(eventType: 0x0013, txPower: 127, rssi: -58, data: Self.iBeaconData)])
        var reports: [AdvertisingReport] = []
        try HCIEventParser.forEachReport(inH4: event[...]) { reports.append($0) }
        let report = try #require(reports.first)
        #expect(report.isExtended)
        #expect(report.eventType == 0x0013)
        #expect(report.addressType == 0x01)
        #expect(report.txPower == nil)
        #expect(report.isComplete)
        let ad = try #require(decode(event).ads.first)
        #expect(ad.address == BluetoothAddress("A4:C1:38:05:C7:A1"))
        #expect(ad.rssi == -58)
        #expect(ad.beacon.major == 20597)
    }

    @Test func extendedReportsAnonymousTxPowerAndPartialData() throws {
        let event = Self.metaEvent(0x0D, reports: [
            Self.extendedReport(eventType: 0x0000, addressType: 0xFF, txPower: -4, rssi: -60, data: Self.iBeaconData),
            // Data status 01: incomplete, more to come. A partial buffer is not decoded.
            Self.extendedReport(eventType: 0x0020, txPower: 0, rssi: -61, data: Self.iBeaconData),
        ])
        var reports: [AdvertisingReport] = []
        try HCIEventParser.forEachReport(inH4: event[...]) { reports.append($0) }
        #expect(reports.count == 2)
        #expect(reports[0].address == nil)
        #expect(reports[0].txPower == -4)
        #expect(reports[1].isComplete == false)
        let r = decode(event)
        #expect(r.ads.count == 1)
        #expect(r.ads.first?.address == nil)
        #expect(r.counts.otherAdvertisements == 1)
    }

    @Test func truncatedEventsAreTypedErrorsWithOffsets() {
        let full = Self.metaEvent(0x02, reports: [Self.legacyReport(data: Self.iBeaconData, rssi: -65)])
        // Declared parameter length longer than the packet.
        #expect(decode(Array(full.dropLast())).error == .truncated(field: "event parameters", offset: 3, needed: full.count - 3, available: full.count - 4))
        // Consistent event length but the report's data length overruns the parameters.
        var overrun = full
        overrun[13] = 0xF0
        #expect(decode(overrun).error == .truncated(field: "advertising data", offset: 14, needed: 0xF0, available: Self.iBeaconData.count + 1))
        let r = decode(overrun)
        #expect(r.counts.errors == 1)
        #expect(r.ads.isEmpty)
    }

    @Test func reportsBeforeTheDamageInOneEventAreDelivered() {
        var event = Self.metaEvent(0x02, reports: [Self.legacyReport(data: Self.iBeaconData, rssi: -65),
                                                   Self.legacyReport(data: Self.iBeaconData, rssi: -66)])
        event[4] = 3 // claims a third report that is not there
        let r = decode(event)
        #expect(r.ads.map(\.rssi) == [-65, -66])
        #expect(r.counts.errors == 1)
    }

    @Test func otherPacketsAndEventsYieldNothing() {
        let commandComplete: [UInt8] = [0x04, 0x0E, 0x04, 0x01, 0x0C, 0x20, 0x00]
        let aclData: [UInt8] = [0x02, 0x01, 0x20, 0x00, 0x00]
        let connectionComplete: [UInt8] = [0x04, 0x3E, 0x02, 0x01, 0x00]
        for packet in [commandComplete, aclData, connectionComplete, [], [0x04]] {
            let r = decode(packet)
            #expect(r.ads.isEmpty)
            #expect(r.counts.reports == 0)
        }
        #expect(decode([0x04]).error != nil, "an event packet without a header is malformed")
    }
}
