/// Hex text ⇄ bytes, for the CLI and for test vectors.
public enum Hex {
    /// Parses hex digits, ignoring spaces, colons and an optional `0x` prefix. Nil on any other character or an odd count.
    public static func bytes(_ text: some StringProtocol) -> [UInt8]? {
        var digits = Substring(text)
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
        var out: [UInt8] = []
        var high: UInt8?
        for character in digits.utf8 {
            if character == UInt8(ascii: " ") || character == UInt8(ascii: ":") { continue }
            guard let nibble = nibble(character) else { return nil }
            if let h = high {
                out.append(h << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return high == nil ? out : nil
    }

    /// Lower-case hex, two digits a byte.
    public static func string(_ bytes: some Sequence<UInt8>) -> String {
        Array(bytes).withUnsafeBytes { string($0) }
    }

    /// Lower-case hex of bytes in memory, written straight into the string: the server digests every request's
    /// token, and the generic form across modules (a witness call a byte, an iterator copying a digest) was three
    /// quarters of that (#36, perf).
    public static func string(_ bytes: UnsafeRawBufferPointer) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            for (index, byte) in bytes.enumerated() {
                out[2 * index] = digit(byte >> 4)
                out[2 * index + 1] = digit(byte & 0x0F)
            }
            return bytes.count * 2
        }
    }

    private static func digit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
