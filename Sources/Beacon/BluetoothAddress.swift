/// A 48-bit Bluetooth device address, most significant byte first (as printed).
public struct BluetoothAddress: Hashable, Sendable {
    public var bytes: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)

    public init(_ b0: UInt8, _ b1: UInt8, _ b2: UInt8, _ b3: UInt8, _ b4: UInt8, _ b5: UInt8) {
        bytes = (b0, b1, b2, b3, b4, b5)
    }

    /// HCI carries addresses little-endian; this takes the six bytes as they are on the wire.
    /// Inlinable and allocation-free: the HCI parser calls it for every advertising report.
    @inlinable
    public init?(littleEndian wire: some Collection<UInt8>) {
        guard wire.count == 6 else { return nil }
        var reversed: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &reversed) { out in
            for (offset, byte) in wire.enumerated() { out[5 - offset] = byte }
        }
        bytes = reversed
    }

    /// Parses `AA:BB:CC:DD:EE:FF` (either case).
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 6 else { return nil }
        var b = [UInt8]()
        for part in parts {
            guard part.count == 2, let value = UInt8(part, radix: 16) else { return nil }
            b.append(value)
        }
        self.init(b[0], b[1], b[2], b[3], b[4], b[5])
    }

    public static func == (lhs: BluetoothAddress, rhs: BluetoothAddress) -> Bool {
        lhs.bytes == rhs.bytes
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(bytes.0); hasher.combine(bytes.1); hasher.combine(bytes.2)
        hasher.combine(bytes.3); hasher.combine(bytes.4); hasher.combine(bytes.5)
    }

    var array: [UInt8] { [bytes.0, bytes.1, bytes.2, bytes.3, bytes.4, bytes.5] }
}

extension BluetoothAddress: CustomStringConvertible {
    public var description: String {
        array.map { byte in
            let hex = String(byte, radix: 16, uppercase: true)
            return hex.count == 1 ? "0" + hex : hex
        }.joined(separator: ":")
    }
}
