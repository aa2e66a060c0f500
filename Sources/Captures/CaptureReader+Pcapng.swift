/// pcapng: a sequence of blocks (type, total length, body, total length again). Section Header
/// Blocks set the byte order; Interface Description Blocks give each interface its link type
/// and timestamp resolution; Enhanced, Simple and (obsolete) Packet Blocks carry packets.
extension CaptureReader {
    static var sectionHeaderBlock: UInt32 { 0x0A0D_0D0A }
    static var interfaceBlock: UInt32 { 1 }
    static var obsoletePacketBlock: UInt32 { 2 }
    static var simplePacketBlock: UInt32 { 3 }
    static var enhancedPacketBlock: UInt32 { 6 }

    mutating func nextPcapng() throws(CaptureError) -> CapturePacket? {
        while true {
            let start = input.offset
            let head = try input.read(8)
            if head.isEmpty { return nil }
            guard head.count == 8 else {
                throw .truncated(offset: start, what: "pcapng block header", needed: 8, available: head.count)
            }
            let type = endian.u32(head, 0)
            if type == Self.sectionHeaderBlock {
                let bom = try input.require(4, "pcapng byte-order magic", start: start)
                switch Array(bom) {
                case [0x1A, 0x2B, 0x3C, 0x4D]: endian = Endian(big: true)
                case [0x4D, 0x3C, 0x2B, 0x1A]: endian = Endian(big: false)
                default: throw .corrupt(offset: start + 8, reason: "section header has no valid byte-order magic")
                }
                interfaces = []
            }
            let length = Int(endian.u32(head, 4))
            let alreadyRead = type == Self.sectionHeaderBlock ? 12 : 8
            guard length >= 12, length >= alreadyRead + 4, length % 4 == 0, length <= Self.maxRecordLength else {
                throw .corrupt(offset: start, reason: "block length \(length) is impossible (at least 12, a multiple of 4, at most \(Self.maxRecordLength))")
            }
            let rest = try input.require(length - alreadyRead, "pcapng block", start: start)
            let body = rest.dropLast(4)
            guard Int(endian.u32(rest, rest.count - 4)) == length else {
                throw .corrupt(offset: start, reason: "block's trailing length differs from its leading length \(length)")
            }
            switch type {
            case Self.interfaceBlock:
                interfaces.append(try interface(body, blockStart: start))
            case Self.enhancedPacketBlock:
                if let packet = try enhancedPacket(body, blockStart: start) { return packet }
            case Self.simplePacketBlock:
                if let packet = try simplePacket(body, blockStart: start) { return packet }
            case Self.obsoletePacketBlock:
                if let packet = try obsoletePacket(body, blockStart: start) { return packet }
            default:
                continue // section headers, statistics, name resolution, custom blocks: nothing for us
            }
        }
    }

    func interface(_ body: ArraySlice<UInt8>, blockStart: Int) throws(CaptureError) -> PcapngInterface {
        guard body.count >= 8 else { throw .corrupt(offset: blockStart, reason: "interface description block too short") }
        var result = PcapngInterface(linkType: UInt32(endian.u16(body, 0)), snapLength: Int(endian.u32(body, 4)))
        var index = 8
        while index + 4 <= body.count {
            let code = endian.u16(body, index), size = Int(endian.u16(body, index + 2))
            let valueStart = index + 4
            guard valueStart + size <= body.count else {
                throw .corrupt(offset: blockStart + 8 + index, reason: "interface option \(code) runs past its block")
            }
            if code == 0 { break }
            if code == 9, size >= 1 {
                result.ticksPerSecond = try Self.ticksPerSecond(body[body.startIndex + valueStart], offset: blockStart + 8 + valueStart)
            } else if code == 14, size == 8 {
                result.offsetSeconds = Int64(bitPattern: endian.u64(body, valueStart))
            }
            index = valueStart + (size + 3) / 4 * 4
        }
        return result
    }

    /// if_tsresol: high bit clear = 10^-n seconds, set = 2^-n seconds.
    static func ticksPerSecond(_ resolution: UInt8, offset: Int) throws(CaptureError) -> UInt64 {
        let exponent = UInt64(resolution & 0x7F)
        if resolution & 0x80 != 0 {
            guard exponent < 64 else { throw .corrupt(offset: offset, reason: "timestamp resolution 2^-\(exponent) is unusable") }
            return 1 << exponent
        }
        guard exponent <= 19 else { throw .corrupt(offset: offset, reason: "timestamp resolution 10^-\(exponent) is unusable") }
        var ticks: UInt64 = 1
        for _ in 0..<exponent { ticks *= 10 }
        return ticks
    }

    func interface(_ id: Int, blockStart: Int) throws(CaptureError) -> PcapngInterface {
        guard id < interfaces.count else {
            throw .corrupt(offset: blockStart, reason: "packet names interface \(id) but only \(interfaces.count) are described")
        }
        return interfaces[id]
    }

    mutating func enhancedPacket(_ body: ArraySlice<UInt8>, blockStart: Int) throws(CaptureError) -> CapturePacket? {
        guard body.count >= 20 else { throw .corrupt(offset: blockStart, reason: "enhanced packet block too short") }
        let link = try interface(Int(endian.u32(body, 0)), blockStart: blockStart)
        let time = link.time(UInt64(endian.u32(body, 4)) << 32 | UInt64(endian.u32(body, 8)))
        return try packet(body, dataAt: 20, captured: Int(endian.u32(body, 12)), time: time, link: link, blockStart: blockStart)
    }

    mutating func obsoletePacket(_ body: ArraySlice<UInt8>, blockStart: Int) throws(CaptureError) -> CapturePacket? {
        guard body.count >= 20 else { throw .corrupt(offset: blockStart, reason: "packet block too short") }
        let link = try interface(Int(endian.u16(body, 0)), blockStart: blockStart)
        let time = link.time(UInt64(endian.u32(body, 4)) << 32 | UInt64(endian.u32(body, 8)))
        return try packet(body, dataAt: 20, captured: Int(endian.u32(body, 12)), time: time, link: link, blockStart: blockStart)
    }

    /// Simple Packet Blocks belong to interface 0 and hold min(original length, snap length) bytes.
    mutating func simplePacket(_ body: ArraySlice<UInt8>, blockStart: Int) throws(CaptureError) -> CapturePacket? {
        guard body.count >= 4 else { throw .corrupt(offset: blockStart, reason: "simple packet block too short") }
        let link = try interface(0, blockStart: blockStart)
        var captured = min(Int(endian.u32(body, 0)), body.count - 4)
        if link.snapLength > 0 { captured = min(captured, link.snapLength) }
        return try packet(body, dataAt: 4, captured: captured, time: lastTime, link: link, blockStart: blockStart)
    }

    mutating func packet(_ body: ArraySlice<UInt8>, dataAt: Int, captured: Int, time: Double,
                         link: PcapngInterface, blockStart: Int) throws(CaptureError) -> CapturePacket? {
        guard captured <= body.count - dataAt else {
            throw .corrupt(offset: blockStart, reason: "packet claims \(captured) bytes but its block holds \(body.count - dataAt)")
        }
        lastTime = time
        guard Self.isHCI(link.linkType) else {
            skippedPackets += 1
            return nil
        }
        let data = body.dropFirst(dataAt).prefix(captured)
        return CapturePacket(time: time, h4: h4(data, linkType: link.linkType), offset: blockStart)
    }
}

/// What a pcapng Interface Description Block says about the packets on that interface.
struct PcapngInterface: Sendable {
    var linkType: UInt32
    var snapLength: Int
    /// if_tsresol; microseconds unless the block says otherwise.
    var ticksPerSecond: UInt64 = 1_000_000
    /// if_tsoffset, seconds added to every timestamp.
    var offsetSeconds: Int64 = 0

    func time(_ ticks: UInt64) -> Double {
        CaptureTime.seconds(ticks, perSecond: ticksPerSecond, offsetSeconds: offsetSeconds)
    }
}
