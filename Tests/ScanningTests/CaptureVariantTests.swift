import Beacon
import Captures
import Foundation
import Scanning
import Testing
import TestSupport

/// The other byte orders, resolutions and link types, made from the real captures so the
/// expected reports are the ones tshark counted.
struct CaptureVariantTests {
    static func u32(_ value: UInt32, big: Bool) -> [UInt8] {
        let b = [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
        return big ? b : b.reversed()
    }

    static func u16(_ value: UInt16, big: Bool) -> [UInt8] {
        big ? [UInt8(value >> 8), UInt8(value & 0xFF)] : [UInt8(value & 0xFF), UInt8(value >> 8)]
    }

    /// The packets of a capture as (time, H4 bytes).
    static func packets(_ name: String) throws -> [(time: Double, h4: [UInt8])] {
        var reader = try CaptureReader(MemoryBytes(try fixtureBytes(name)))
        var result: [(Double, [UInt8])] = []
        while let p = try reader.next() { result.append((p.time, Array(p.h4))) }
        return result
    }

    /// A pcap file written from scratch: either byte order, micro- or nanosecond, link type 187 or 201.
    static func pcap(_ packets: [(time: Double, h4: [UInt8])], big: Bool, nano: Bool, linkType: UInt32) -> [UInt8] {
        let magic: UInt32 = nano ? 0xA1B2_3C4D : 0xA1B2_C3D4
        var out = u32(magic, big: big) + u16(2, big: big) + u16(4, big: big) + u32(0, big: big) + u32(0, big: big)
            + u32(65535, big: big) + u32(linkType, big: big)
        for p in packets {
            let body = (linkType == 201 ? [0, 0, 0, 1] : []) + p.h4
            let micros = UInt64((p.time * 1_000_000).rounded())
            let fraction = UInt32(micros % 1_000_000) * (nano ? 1000 : 1)
            out += u32(UInt32(micros / 1_000_000), big: big) + u32(fraction, big: big)
                + u32(UInt32(body.count), big: big) + u32(UInt32(body.count), big: big) + body
        }
        return out
    }

    static func block(_ type: UInt32, _ body: [UInt8], big: Bool) -> [UInt8] {
        let padded = body + [UInt8](repeating: 0, count: (4 - body.count % 4) % 4)
        let length = UInt32(padded.count + 12)
        return u32(type, big: big) + u32(length, big: big) + padded + u32(length, big: big)
    }

    func expectSameReports(_ bytes: [UInt8], as name: String, format: CaptureFormat) throws {
        let expected = replay(try fixtureBytes(name))
        let got = replay(bytes)
        #expect(got.error == nil)
        #expect(got.format == format)
        #expect(got.counts == expected.counts)
        #expect(got.advertisements.count == expected.advertisements.count)
        for (a, b) in zip(got.advertisements, expected.advertisements) {
            #expect(a.beacon == b.beacon && a.rssi == b.rssi && a.address == b.address && a.measuredPower == b.measuredPower)
            #expect(abs(a.time - b.time) < 1e-6)
        }
    }

    @Test(arguments: [(false, false, UInt32(201)), (true, false, 201), (false, true, 187), (true, true, 187)])
    func pcapEitherByteOrderResolutionAndLinkType(big: Bool, nano: Bool, linkType: UInt32) throws {
        try expectSameReports(Self.pcap(try Self.packets("govee-inout.pcap"), big: big, nano: nano, linkType: linkType),
                              as: "govee-inout.pcap", format: .pcap)
    }

    @Test func btsnoopUnencapsulatedHCI() throws {
        // Datalink 1001: no H4 type byte; the flags say command/event and direction.
        var out = Array("btsnoop\0".utf8) + Self.u32(1, big: true) + Self.u32(1001, big: true)
        for p in try Self.packets("govee-h5100.btsnoop") {
            let type = p.h4.first ?? 0
            let flags: UInt32 = type == 0x04 ? 3 : (type == 0x01 ? 2 : 0)
            let body = Array(p.h4.dropFirst())
            let micros = Int64((p.time * 1_000_000).rounded()) + 0x00DC_DDB3_0F2F_8000
            out += Self.u32(UInt32(body.count), big: true) + Self.u32(UInt32(body.count), big: true)
                + Self.u32(flags, big: true) + Self.u32(0, big: true)
                + Self.u32(UInt32(micros >> 32), big: true) + Self.u32(UInt32(micros & 0xFFFF_FFFF), big: true) + body
        }
        try expectSameReports(out, as: "govee-h5100.btsnoop", format: .btsnoop)
    }

    @Test(arguments: [true, false])
    func pcapngInterfacesResolutionsAndBlockKinds(big: Bool) throws {
        let packets = try Self.packets("govee-inout.pcap")
        let shb = [0x1A, 0x2B, 0x3C, 0x4D].map(UInt8.init) // written big-endian…
        let bom = big ? shb : shb.reversed() // …or little-endian
        var out = Self.block(0x0A0D_0D0A, bom + Self.u16(1, big: big) + Self.u16(0, big: big) + [UInt8](repeating: 0xFF, count: 8), big: big)
        // Interface 0: Ethernet (its packets are skipped). Interface 1: H4 with phdr, if_tsresol 9 (nanoseconds).
        out += Self.block(1, Self.u16(1, big: big) + [0, 0] + Self.u32(0, big: big), big: big)
        let tsresol = Self.u16(9, big: big) + Self.u16(1, big: big) + [9, 0, 0, 0]
        let endOfOptions = Self.u16(0, big: big) + Self.u16(0, big: big)
        out += Self.block(1, Self.u16(201, big: big) + [0, 0] + Self.u32(0, big: big) + tsresol + endOfOptions, big: big)
        out += Self.block(4, [0, 0, 0, 0], big: big) // a name resolution block: not ours, skipped
        out += Self.block(6, Self.u32(0, big: big) + [UInt8](repeating: 0, count: 8) + Self.u32(4, big: big) + Self.u32(4, big: big) + [1, 2, 3, 4], big: big)
        for p in packets {
            let nanos = UInt64((p.time * 1_000_000).rounded()) * 1000
            let data = [0, 0, 0, 1] + p.h4
            out += Self.block(6, Self.u32(1, big: big) + Self.u32(UInt32(nanos >> 32), big: big) + Self.u32(UInt32(nanos & 0xFFFF_FFFF), big: big)
                + Self.u32(UInt32(data.count), big: big) + Self.u32(UInt32(data.count), big: big) + data, big: big)
        }
        try expectSameReports(out, as: "govee-inout.pcap", format: .pcapng)
        var reader = try CaptureReader(MemoryBytes(out))
        while try reader.next() != nil {}
        #expect(reader.skippedPackets == 1)
    }

    @Test func pcapngSimplePacketBlocksTakeTheLastTimestamp() throws {
        let packets = try Self.packets("govee-inout.pcap")
        let beacon = try #require(packets.first { p in
            var d = AdvertisementDecoder()
            d.decode(h4: p.h4[...], time: 0) { _ in }
            return d.counts.iBeacons > 0
        })
        var out = Self.block(0x0A0D_0D0A, [0x4D, 0x3C, 0x2B, 0x1A, 1, 0, 0, 0] + [UInt8](repeating: 0xFF, count: 8), big: false)
        out += Self.block(1, Self.u16(187, big: false) + [0, 0] + Self.u32(0, big: false), big: false)
        let micros = UInt64(1_701_381_701_507_483)
        out += Self.block(6, Self.u32(0, big: false) + Self.u32(UInt32(micros >> 32), big: false) + Self.u32(UInt32(micros & 0xFFFF_FFFF), big: false)
            + Self.u32(0, big: false) + Self.u32(0, big: false), big: false)
        out += Self.block(3, Self.u32(UInt32(beacon.h4.count), big: false) + beacon.h4, big: false)
        let r = replay(out)
        #expect(r.error == nil)
        let ad = try #require(r.advertisements.first)
        #expect(ad.address == BluetoothAddress("A4:C1:38:05:C7:A1"))
        #expect(abs(ad.time - 1_701_381_701.507483) < 1e-6)
    }

    @Test func recordedBtsnoopRoundTripsThroughTheReader() throws {
        let packets = try Self.packets("govee-inout.pcap")
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bikebeacon-\(UUID().uuidString).btsnoop").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try BtsnoopFileWriter(path: path)
        for p in packets { try writer.append(h4: p.h4, time: p.time) }
        #expect(writer.packets == packets.count)
        var reader = try CaptureReader(FileBytes(path: path))
        #expect(reader.format == .btsnoop)
        var back: [(time: Double, h4: [UInt8])] = []
        while let p = try reader.next() { back.append((p.time, Array(p.h4))) }
        #expect(back.map(\.h4) == packets.map(\.h4))
        #expect(zip(back, packets).allSatisfy { abs($0.time - $1.time) < 1e-6 })
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(Array(bytes[12..<16]) == [0, 0, 0x03, 0xEA], "datalink 1002, raw H4")
        try expectSameReports(bytes, as: "govee-inout.pcap", format: .btsnoop)
    }
}
