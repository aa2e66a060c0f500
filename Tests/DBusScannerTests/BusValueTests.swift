import DBus
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

    /// Encoding into a libdbus message and reading back gives the same tree, signatures included.
    @Test func messageRoundTrip() throws {
        let values: [BusValue] = [
            BlueZ.discoveryFilter,
            .objectPath("/org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF"),
            .dictionary(signature: "a{qv}", [
                BusDictEntry(key: .uint16(0x004C), value: .variant(.array(signature: "ay", [.byte(2), .byte(0x15), .byte(0xC5)]))),
            ]),
            .array(signature: "aa{qv}", []),
            .structure([.uint32(7), .boolean(false), .double(1.5), .int64(-3), .uint64(9), .signature("a{sv}")]),
            .array(signature: "as", [.string("org.bluez.Device1"), .string("ünïcode")]),
        ]
        let message = try BusMessage.methodCall(destination: "org.bluez", path: "/", interface: "org.example", member: "Echo")
        try message.append(values)
        #expect(try message.arguments() == values)
    }

    @Test func encodingRejectsElementsOfTheWrongType() throws {
        let message = try BusMessage.methodCall(destination: "org.bluez", path: "/", interface: "org.example", member: "Echo")
        #expect(throws: BusError.typeMismatch(expected: "y", found: "s")) {
            try message.append([.array(signature: "ay", [.byte(1), .string("x")])])
        }
    }
}
