import Beacon
import Foundation
import Testing

/// The real vectors of design §3: manufacturer data as BlueZ and btmon see it, company id included.
struct IBeaconVectorTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        var hex: String, uuid: String, major: UInt16, minor: UInt16, power: Int?
        var testDescription: String { uuid }
    }

    static let vectors = [
        Vector(hex: "4c000215494e54454c4c495f524f434b535f48575075f2ffc2",
               uuid: "494E5445-4C4C-495F-524F-434B535F4857", major: 20597, minor: 62207, power: -62),
        Vector(hex: "4c000215426c7565436861726d426561636f6e730efe1355c5",
               uuid: "426C7565-4368-6172-6D42-6561636F6E73", major: 3838, minor: 4949, power: -59),
        Vector(hex: "4c000215b5b182c7eab14988aa99b5c1517008d90001641ac5",
               uuid: "B5B182C7-EAB1-4988-AA99-B5C1517008D9", major: 1, minor: 25626, power: -59),
    ]

    @Test(arguments: vectors)
    func manufacturerData(_ v: Vector) throws {
        let frame = try IBeacon.decode(manufacturerData: try #require(Hex.bytes(v.hex)))
        #expect(frame.beacon.uuid.uuidString == v.uuid)
        #expect(frame.beacon.major == v.major)
        #expect(frame.beacon.minor == v.minor)
        #expect(frame.measuredPower == v.power)
    }

    @Test(arguments: vectors)
    func fullAdvertisingDataWithPadding(_ v: Vector) throws {
        let md = try #require(Hex.bytes(v.hex))
        let ad: [UInt8] = [0x02, 0x01, 0x06, UInt8(md.count + 1), 0xFF] + md + [0, 0, 0]
        let frame = try IBeacon.decode(advertisingData: ad)
        #expect(frame.beacon.description == "\(v.uuid):\(v.major):\(v.minor)")
    }

    @Test(arguments: vectors)
    func bluezFormRoundTrip(_ v: Vector) throws {
        let md = try #require(Hex.bytes(v.hex))
        let frame = try IBeacon.decode(companyID: 0x004C, payload: md.dropFirst(2))
        #expect(IBeacon.manufacturerData(for: frame.beacon, measuredPower: Int8(try #require(frame.measuredPower))) == md)
    }
}
