/// Classic pcap (either byte order, microsecond or nanosecond magic): a 24-byte header with
/// the link type, then records of seconds, fraction, captured length and original length.
extension CaptureReader {
    mutating func readPcapHeader() throws(CaptureError) {
        let header = try input.require(24, "pcap header", start: 0)
        let magic = Array(header.prefix(4))
        endian = Endian(big: magic[0] == 0xA1)
        nanoseconds = magic == [0xA1, 0xB2, 0x3C, 0x4D] || magic == [0x4D, 0x3C, 0xB2, 0xA1]
        // The upper bits carry FCS information; the link type is the low 16 bits.
        linkType = endian.u32(header, 20) & 0xFFFF
        guard Self.isHCI(linkType) else { throw .unsupportedLinkType(linkType, offset: 20) }
    }

    mutating func nextPcap() throws(CaptureError) -> CapturePacket? {
        let start = input.offset
        let header = try input.read(16)
        if header.isEmpty { return nil }
        guard header.count == 16 else {
            throw .truncated(offset: start, what: "pcap record header", needed: 16, available: header.count)
        }
        let captured = Int(endian.u32(header, 8))
        guard captured <= Self.maxRecordLength else {
            throw .corrupt(offset: start, reason: "record claims \(captured) bytes, more than any HCI packet")
        }
        let body = try input.require(captured, "pcap record body", start: start)
        let time = CaptureTime.seconds(
            UInt64(endian.u32(header, 0)) * (nanoseconds ? 1_000_000_000 : 1_000_000) + UInt64(endian.u32(header, 4)),
            perSecond: nanoseconds ? 1_000_000_000 : 1_000_000
        )
        return CapturePacket(time: time, h4: h4(body, linkType: linkType), offset: start)
    }
}
