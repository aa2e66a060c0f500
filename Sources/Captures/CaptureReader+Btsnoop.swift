/// btsnoop v1 (RFC 1761 style, as written by Android, btmon -w and `bikebeacon record`):
/// a 16-byte header, then records of original length, included length, flags, drops and a
/// timestamp in microseconds since 0 AD, all big-endian. btmon writes datalink 2001 ("monitor"):
/// every controller's traffic and btmon's own notes, the packet type in the flags.
extension CaptureReader {
    static var btsnoopH1: UInt32 { 1001 }
    static var btsnoopH4: UInt32 { 1002 }
    static var btsnoopMonitor: UInt32 { 2001 }
    /// Microseconds from 0 AD to 1970-01-01, the btsnoop timestamp origin.
    static var btsnoopEpochMicros: Int64 { 0x00DC_DDB3_0F2F_8000 }

    mutating func readBtsnoopHeader() throws(CaptureError) {
        let header = try input.require(16, "btsnoop header", start: 0)
        let version = endian.u32(header, 8)
        guard version == 1 else { throw .corrupt(offset: 8, reason: "btsnoop version \(version), only version 1 exists") }
        linkType = endian.u32(header, 12)
        guard [Self.btsnoopH1, Self.btsnoopH4, Self.btsnoopMonitor].contains(linkType) else {
            throw .unsupportedLinkType(linkType, offset: 12)
        }
    }

    mutating func nextBtsnoop() throws(CaptureError) -> CapturePacket? {
        while true {
            guard let record = try nextBtsnoopRecord() else { return nil }
            guard linkType == Self.btsnoopMonitor else { return record.packet }
            // The low 16 bits of the flags are the record's opcode; index changes, btmon's notes and
            // the like carry no HCI packet.
            if let type = Self.monitorPacketType(UInt16(truncatingIfNeeded: record.flags)) {
                return CapturePacket(time: record.packet.time, h4: ArraySlice([type] + record.packet.h4), offset: record.packet.offset)
            }
        }
    }

    /// The H4 packet indicator of a monitor record's opcode (BlueZ's src/shared/btsnoop.h).
    static func monitorPacketType(_ opcode: UInt16) -> UInt8? {
        switch opcode {
        case 2: 0x01  // command
        case 3: 0x04  // event
        case 4, 5: 0x02  // ACL sent, received
        case 6, 7: 0x03  // SCO sent, received
        case 18, 19: 0x05  // ISO sent, received
        default: nil
        }
    }

    private mutating func nextBtsnoopRecord() throws(CaptureError) -> (packet: CapturePacket, flags: UInt32)? {
        let start = input.offset
        let header = try input.read(24)
        if header.isEmpty { return nil }
        guard header.count == 24 else {
            throw .truncated(offset: start, what: "btsnoop record header", needed: 24, available: header.count)
        }
        let included = Int(endian.u32(header, 4))
        let flags = endian.u32(header, 8)
        guard included <= Self.maxRecordLength else {
            throw .corrupt(offset: start, reason: "record claims \(included) bytes, more than any HCI packet")
        }
        let body = try input.require(included, "btsnoop record body", start: start)
        let micros = Int64(bitPattern: endian.u64(header, 16)) &- Self.btsnoopEpochMicros
        let time = CaptureTime.seconds(micros, perSecond: 1_000_000)
        if linkType != Self.btsnoopH1 {
            return (CapturePacket(time: time, h4: body, offset: start), flags)
        }
        // Un-encapsulated HCI: flag bit 1 = command/event (bit 0 = received), else ACL data; H4 indicators
        // 0x01 command, 0x02 ACL, 0x04 event.
        let type: UInt8 = flags & 0b10 == 0 ? 0x02 : (flags & 0b01 == 0 ? 0x01 : 0x04)
        return (CapturePacket(time: time, h4: ArraySlice([type] + body), offset: start), flags)
    }
}
