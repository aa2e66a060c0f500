@testable import Scanning
import Testing

/// The typed accessors are the guard between bus data and the scanner: a wrong type must be a
/// typed error naming both types, never a crash.
struct BusValueTests {
    @Test func manufacturerDataDecodes() throws {
        let value = BusValue.dictionary(signature: "a{qv}", [
            BusDictEntry(key: .uint16(0x004C), value: .variant(.array(signature: "ay", [.byte(2), .byte(0x15)]))),
        ])
        #expect(try DeviceUpdate.manufacturerData(value) == [0x004C: [2, 0x15]])
    }

    @Test func mockQuirkIsATypedMismatch() {
        // python-dbusmock's AddDevice: an empty aa{qv} where BlueZ sends a{qv}.
        let quirk = BusValue.array(signature: "aa{qv}", [])
        #expect(throws: BusError.typeMismatch(expected: "a{qv}", found: "aa{qv}")) {
            try DeviceUpdate.manufacturerData(quirk)
        }
    }

    @Test func wrongPropertyTypesAreListedAndTheRestIsKept() {
        let update = DeviceUpdate(properties: [
            "RSSI": .int32(-60),
            "Address": .string("AA:BB:CC:DD:EE:FF"),
            "ManufacturerData": .dictionary(signature: "a{qv}", [
                BusDictEntry(key: .uint16(0x004C), value: .variant(.string("not bytes"))),
            ]),
        ])
        #expect(update.rssi == nil)
        #expect(update.manufacturerData == nil)
        #expect(update.address?.description == "AA:BB:CC:DD:EE:FF")
        #expect(update.problems == ["RSSI: expected D-Bus type n, found i", "ManufacturerData: expected D-Bus type ay, found s"])
        #expect(update.carriesAdvertisement)
    }

    @Test func signaturesOfContainers() {
        #expect(BlueZ.discoveryFilter.signature == "a{sv}")
        #expect(BusValue.structure([.string("a"), .variant(.int16(1))]).signature == "(sv)")
    }
}
