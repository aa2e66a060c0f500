#if canImport(Glibc)
import Glibc
#endif

/// btsnoop v1, datalink 1002 (H4) encoding: what `bikebeacon record` writes and Wireshark,
/// btmon and `bikebeacon replay` read.
public enum BtsnoopEncoding {
    public static func header() -> [UInt8] {
        Array("btsnoop\0".utf8) + bigEndian(UInt32(1)) + bigEndian(UInt32(1002))
    }

    /// One record for an H4 packet. Events arrive from the controller, so they are marked
    /// received; the flags also say whether the packet is a command/event or data.
    public static func record(h4 packet: some Collection<UInt8>, time: Double) -> [UInt8] {
        let type = packet.first ?? 0
        let isCommandOrEvent = type == 0x01 || type == 0x04
        let sent = type == 0x01 || type == 0x02
        let flags = UInt32(isCommandOrEvent ? 0b10 : 0) | UInt32(sent ? 0 : 0b01)
        let micros = time.isFinite ? Int64(max(-9e15, min(9e15, (time * 1_000_000).rounded()))) : 0
        let length = UInt32(packet.count)
        return bigEndian(length) + bigEndian(length) + bigEndian(flags) + bigEndian(UInt32(0))
            + bigEndian(UInt64(bitPattern: micros &+ 0x00DC_DDB3_0F2F_8000)) + Array(packet)
    }

    static func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        (0..<(T.bitWidth / 8)).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }
}

/// Appends btsnoop records to a file: the I/O edge of `bikebeacon record`.
public final class BtsnoopFileWriter {
    public let path: String
    private let fd: Int32
    public private(set) var packets = 0

    /// Creates (or truncates) `path` and writes the btsnoop header.
    public init(path: String) throws(CaptureError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .unwritable(path: path, reason: String(cString: strerror(errno))) }
        self.path = path
        self.fd = fd
        try write(BtsnoopEncoding.header())
    }

    deinit { close(fd) }

    /// Writes one packet straight through, so a killed recorder loses at most the packet in flight.
    public func append(h4 packet: some Collection<UInt8>, time: Double) throws(CaptureError) {
        try write(BtsnoopEncoding.record(h4: packet, time: time))
        packets += 1
    }

    private func write(_ bytes: [UInt8]) throws(CaptureError) {
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress.map { $0 + written }, bytes.count - written) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { throw .unwritable(path: path, reason: String(cString: strerror(errno))) }
            written += n
        }
    }
}
