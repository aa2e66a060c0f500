import Beacon
import Testing

/// The strict match of design §3, and the real-world edge cases a scanner meets.
struct IBeaconStrictnessTests {
    let valid = Hex.bytes("4c000215494e54454c4c495f524f434b535f48575075f2ffc2") ?? []

    @Test func goveePlusTwelvePowerIsUnknownNotACrash() throws {
        var bytes = valid
        bytes[24] = 0x0C
        let frame = try IBeacon.decode(manufacturerData: bytes)
        #expect(frame.measuredPower == nil)
        #expect(frame.beacon.major == 20597)
    }

    @Test func otherCompanyRejected() {
        var bytes = valid
        bytes[0] = 0x06
        #expect(throws: IBeaconError.notApple(companyID: 0x0006)) { try IBeacon.decode(manufacturerData: bytes) }
    }

    @Test func otherAppleFrameRejected() {
        var bytes = valid
        bytes[2] = 0x10  // Nearby Info
        #expect(throws: IBeaconError.notIBeacon(type: 0x10, length: 0x15)) { try IBeacon.decode(manufacturerData: bytes) }
    }

    @Test func oneByteShortOrLongRejected() {
        #expect(throws: IBeaconError.wrongLength(22)) { try IBeacon.decode(manufacturerData: valid.dropLast()) }
        #expect(throws: IBeaconError.wrongLength(24)) { try IBeacon.decode(manufacturerData: valid + [0]) }
    }

    @Test func adStructureOverrunNamesTheOffset() {
        let ad: [UInt8] = [0x02, 0x01, 0x06, 0x1A, 0xFF, 0x4C, 0x00]
        #expect(throws: IBeaconError.malformedAdvertisingData(.truncated(offset: 3, declaredLength: 26, available: 3))) {
            try IBeacon.decode(advertisingData: ad)
        }
    }

    @Test func iBeaconAfterAnotherManufacturerStructureIsFound() throws {
        let other: [UInt8] = [0x05, 0xFF, 0x06, 0x00, 0x01, 0x02]
        let ad = [0x02, 0x01, 0x06] + other + [UInt8(valid.count + 1), 0xFF] + valid
        #expect(try IBeacon.decode(advertisingData: ad).beacon.minor == 62207)
    }

    @Test func flagsOnlyHasNoManufacturerData() {
        #expect(throws: IBeaconError.noManufacturerData) { try IBeacon.decode(advertisingData: [0x02, 0x01, 0x06]) }
        #expect(throws: IBeaconError.empty) { try IBeacon.decode(advertisingData: [UInt8]()) }
    }

    @Test func beaconIDTextRoundTrip() throws {
        let id = try IBeacon.decode(manufacturerData: valid).beacon
        #expect(id.description == "494E5445-4C4C-495F-524F-434B535F4857:20597:62207")
        #expect(BeaconID("494e5445-4c4c-495f-524f-434b535f4857:20597:62207") == id)
        #expect(BeaconID("494E5445-4C4C-495F-524F-434B535F4857:65536:1") == nil)
        #expect(BeaconID("not-a-uuid:1:2") == nil)
        #expect(BeaconID("494E5445-4C4C-495F-524F-434B535F4857:1") == nil)
    }

    @Test func addressPrintsMostSignificantFirst() {
        let wire: [UInt8] = [0xA1, 0xC7, 0x05, 0x38, 0xC1, 0xA4]
        #expect(BluetoothAddress(littleEndian: wire)?.description == "A4:C1:38:05:C7:A1")
        #expect(BluetoothAddress("a4:c1:38:05:c7:a1") == BluetoothAddress(littleEndian: wire))
        #expect(BluetoothAddress("A4:C1:38:05:C7") == nil)
        #expect(BluetoothAddress(littleEndian: wire[...].dropLast()) == nil)
        // Addresses that differ in any one byte differ (each position checked, first and last too).
        for position in wire.indices {
            var other = wire
            other[position] ^= 0x01
            #expect(BluetoothAddress(littleEndian: other) != BluetoothAddress(littleEndian: wire))
        }
    }

    @Test func hexParsing() {
        #expect(Hex.bytes("0x4C 00:02") == [0x4C, 0x00, 0x02])
        #expect(Hex.bytes("4c0") == nil)
        #expect(Hex.bytes("4g") == nil)
        #expect(Hex.string([0x00, 0x0F, 0xA0, 0xFF]) == "000fa0ff")
        #expect(Hex.bytes(Hex.string(Array(0...255))) == Array(0...255))
    }
}
