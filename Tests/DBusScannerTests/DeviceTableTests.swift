import Beacon
import DBus
@testable import Scanning
import Testing

/// BlueZ sends only what changed; the table pairs RSSI-only updates with cached manufacturer data.
struct DeviceTableTests {
    static let path = "/org/bluez/hci0/dev_AA_BB_CC_DD_EE_01"
    /// Design §3 vector 3 (payload after the company id).
    static let beacon: [UInt8] = [0x02, 0x15, 0xB5, 0xB1, 0x82, 0xC7, 0xEA, 0xB1, 0x49, 0x88, 0xAA, 0x99,
                                  0xB5, 0xC1, 0x51, 0x70, 0x08, 0xD9, 0x00, 0x01, 0x64, 0x1A, 0xC5]

    static func update(rssi: Int16? = nil, data: [UInt16: [UInt8]]? = nil, address: String? = nil) -> DeviceUpdate {
        var properties = [String: BusValue]()
        if let rssi { properties["RSSI"] = .int16(rssi) }
        if let address { properties["Address"] = .string(address) }
        if let data {
            properties["ManufacturerData"] = .dictionary(signature: "a{qv}", data.sorted { $0.key < $1.key }.map {
                BusDictEntry(key: .uint16($0.key), value: .variant(.array(signature: "ay", $0.value.map(BusValue.byte))))
            })
        }
        return DeviceUpdate(properties: properties)
    }

    @Test func rssiOnlyUpdateReusesCachedBeacon() throws {
        var table = DeviceTable()
        let first = table.apply(Self.update(rssi: -60, data: [0x004C: Self.beacon], address: "AA:BB:CC:DD:EE:01"), path: Self.path, time: 10)
        let second = table.apply(Self.update(rssi: -48), path: Self.path, time: 11)
        guard case let .iBeacon(a) = first, case let .iBeacon(b) = second else {
            Issue.record("expected two iBeacon reports, got \(first) and \(second)")
            return
        }
        #expect(a.beacon.description == "B5B182C7-EAB1-4988-AA99-B5C1517008D9:1:25626")
        #expect(a.rssi == -60 && a.time == 10 && a.measuredPower == -59)
        #expect(b.beacon == a.beacon && b.rssi == -48 && b.time == 11)
        #expect(b.address?.description == "AA:BB:CC:DD:EE:01")
    }

    @Test func nonAdvertisementChangesAreNotReports() {
        var table = DeviceTable()
        _ = table.apply(Self.update(rssi: -60, data: [0x004C: Self.beacon]), path: Self.path, time: 1)
        #expect(table.apply(DeviceUpdate(properties: ["Connected": .boolean(true)]), path: Self.path, time: 2) == .none)
    }

    @Test func noRSSIMeansNotHeard() {
        var table = DeviceTable()
        #expect(table.apply(Self.update(data: [0x004C: Self.beacon]), path: Self.path, time: 1) == .none)
        table.invalidate(["RSSI"], path: Self.path)
        #expect(table.entries[Self.path]?.rssi == nil)
    }

    @Test func otherManufacturersAndAppleFramesAreOther() {
        var table = DeviceTable()
        #expect(table.apply(Self.update(rssi: -70, data: [0x0006: [1, 2]]), path: "/a", time: 1)
            == .other("manufacturer data of company 0x0006"))
        #expect(table.apply(Self.update(rssi: -70), path: "/b", time: 1) == .other("no manufacturer data"))
        guard case .other = table.apply(Self.update(rssi: -70, data: [0x004C: [0x10, 0x05, 1, 2, 3, 4, 5]]), path: "/c", time: 1) else {
            Issue.record("an Apple Nearby frame is not an iBeacon")
            return
        }
    }

    @Test func unreadableDataIsMalformed() {
        var table = DeviceTable()
        let quirk = DeviceUpdate(properties: ["RSSI": .int16(-79), "ManufacturerData": .array(signature: "aa{qv}", [])])
        #expect(table.apply(quirk, path: Self.path, time: 1)
            == .malformed(["ManufacturerData: expected D-Bus type a{qv}, found aa{qv}"]))
    }
}

struct RemovalPolicyTests {
    @Test func rateLimitedAndNotRepeatedWhileInFlight() {
        var policy = RemovalPolicy(maximumPerSecond: 2, retryAfter: 30)
        var answers = [Bool]()
        for (path, now) in [("/a", 0.0), ("/a", 0.1), ("/b", 0.2), ("/c", 0.3), ("/c", 1.3)] {
            answers.append(policy.allow(path, now: now))
        }
        #expect(answers == [true, false, true, false, true])
        policy.forget("/a")
        let again = policy.allow("/a", now: 1.4)
        let afterRetryWindow = policy.allow("/b", now: 31)
        #expect(again && afterRetryWindow)
    }
}

struct AdapterChoiceTests {
    let adapters = [Adapter(path: "/org/bluez/hci0", powered: false), Adapter(path: "/org/bluez/hci1", powered: true)]

    @Test func defaultIsFirstPowered() {
        #expect(AdapterChoice(requested: nil, adapters: adapters) == .use(adapters[1]))
    }

    @Test func requestedByNameOrPath() {
        #expect(AdapterChoice(requested: "hci0", adapters: adapters) == .poweredOff(adapters[0]))
        #expect(AdapterChoice(requested: "/org/bluez/hci1", adapters: adapters) == .use(adapters[1]))
        #expect(AdapterChoice(requested: "hci2", adapters: adapters) == .missing(available: ["hci0", "hci1"]))
        #expect(AdapterChoice(requested: nil, adapters: []) == .missing(available: []))
    }
}
