/// One HCI packet from a capture file.
public struct CapturePacket: Sendable {
    /// Seconds since the Unix epoch, from the capture's timestamp.
    public var time: Double
    /// The packet in H4 form: packet-type byte (0x04 = event) then the HCI packet.
    public var h4: ArraySlice<UInt8>
    /// Byte offset of the packet's record in the file.
    public var offset: Int
}

public enum CaptureFormat: String, Sendable {
    case btsnoop, pcap, pcapng
}

/// Streams HCI packets out of a btsnoop, pcap or pcapng capture, detected by its first bytes
/// (never by file name). Reads record by record, so memory stays flat for any file size.
/// After damage, `next()` throws once (naming the byte offset) and then returns nil.
public struct CaptureReader<Source: ByteSource> {
    public let format: CaptureFormat
    /// Packets on links that are not HCI H4 (e.g. a pcapng with an Ethernet interface too), skipped.
    public internal(set) var skippedPackets = 0

    var input: CaptureInput<Source>
    var endian = Endian(big: true)
    /// btsnoop datalink or pcap link type.
    var linkType: UInt32 = 0
    /// pcap: fractions are nanoseconds rather than microseconds.
    var nanoseconds = false
    var interfaces: [PcapngInterface] = []
    /// pcapng Simple Packet Blocks carry no timestamp; they get the last one seen.
    var lastTime = 0.0
    var finished = false

    public static var linkTypeH4: UInt32 { 187 }
    public static var linkTypeH4WithPhdr: UInt32 { 201 }
    /// Upper bound on one record; a larger length field means the file is corrupt, not that
    /// we should allocate gigabytes.
    static var maxRecordLength: Int { 1 << 20 }

    public init(_ source: Source) throws(CaptureError) {
        var input = CaptureInput(source)
        let magic = try input.peek(8)
        guard let format = Self.detect(magic) else { throw .unknownFormat(firstBytes: Array(magic)) }
        self.format = format
        self.input = input
        switch format {
        case .btsnoop: try readBtsnoopHeader()
        case .pcap: try readPcapHeader()
        case .pcapng: break // the Section Header Block is read as the first block
        }
    }

    static func detect(_ magic: ArraySlice<UInt8>) -> CaptureFormat? {
        let bytes = Array(magic)
        if bytes.count >= 8, bytes == Array("btsnoop\0".utf8) { return .btsnoop }
        guard bytes.count >= 4 else { return nil }
        let first4 = Array(bytes[0..<4])
        if first4 == [0x0A, 0x0D, 0x0D, 0x0A] { return .pcapng }
        let pcapMagics: [[UInt8]] = [[0xA1, 0xB2, 0xC3, 0xD4], [0xD4, 0xC3, 0xB2, 0xA1],
                                     [0xA1, 0xB2, 0x3C, 0x4D], [0x4D, 0x3C, 0xB2, 0xA1]]
        return pcapMagics.contains(first4) ? .pcap : nil
    }

    /// The next HCI packet, nil at the end of the capture (or after damage was reported).
    public mutating func next() throws(CaptureError) -> CapturePacket? {
        guard !finished else { return nil }
        do {
            let packet: CapturePacket?
            switch format {
            case .btsnoop: packet = try nextBtsnoop()
            case .pcap: packet = try nextPcap()
            case .pcapng: packet = try nextPcapng()
            }
            if packet == nil { finished = true }
            return packet
        } catch {
            finished = true
            throw error
        }
    }

    /// H4 bytes of a record on an H4 link: link type 201 starts with a 4-byte direction header.
    func h4(_ body: ArraySlice<UInt8>, linkType: UInt32) -> ArraySlice<UInt8> {
        linkType == Self.linkTypeH4WithPhdr ? body.dropFirst(4) : body
    }

    static func isHCI(_ linkType: UInt32) -> Bool {
        linkType == linkTypeH4 || linkType == linkTypeH4WithPhdr
    }
}

/// Timestamps to epoch seconds, splitting whole seconds from the fraction so large counts keep
/// their sub-second precision.
enum CaptureTime {
    static func seconds(_ units: UInt64, perSecond: UInt64, offsetSeconds: Int64 = 0) -> Double {
        let whole = units / perSecond, rest = units % perSecond
        return Double(whole) + Double(offsetSeconds) + Double(rest) / Double(perSecond)
    }

    static func seconds(_ units: Int64, perSecond: Int64) -> Double {
        let whole = units / perSecond, rest = units % perSecond
        return Double(whole) + Double(rest) / Double(perSecond)
    }
}
