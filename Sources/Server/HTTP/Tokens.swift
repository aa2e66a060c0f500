import Beacon
import Crypto
import Foundation

/// Bearer tokens: random, prefixed by kind, and stored only as a SHA-256 digest so a leaked
/// database does not hand out working tokens.
enum Tokens {
    static let ownerPrefix = "bbo_"
    static let sentinelPrefix = "bbs_"

    static func make(prefix: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return prefix + Base64URL.encode(bytes)
    }

    /// Hashed where the text lies (no copy into `Data`): every request with a token comes through here (#36, perf).
    static func digest(_ token: some StringProtocol) -> String {
        var hash = SHA256()
        if token.utf8.withContiguousStorageIfAvailable({ hash.update(bufferPointer: UnsafeRawBufferPointer($0)) }) == nil {
            hash.update(data: Array(token.utf8))
        }
        return hash.finalize().withUnsafeBytes { Hex.string($0) }
    }

    /// A new random identifier for rows the server creates: a version-4 UUID in lower case. Made here, not by
    /// Foundation's `UUID()`, which goes through `sscanf` and `sprintf`: 4 % of the server's CPU in a sighting
    /// ingest, which makes 50 a batch.
    static func id() -> String {
        var generator = SystemRandomNumberGenerator()
        let high = (generator.next() as UInt64) & ~0xF000 | 0x4000
        let low = (generator.next() as UInt64) & 0x3FFF_FFFF_FFFF_FFFF | 0x8000_0000_0000_0000
        var bytes = [UInt8]()
        bytes.reserveCapacity(16)
        withUnsafeBytes(of: high.bigEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: low.bigEndian) { bytes.append(contentsOf: $0) }
        var text = [UInt8]()
        text.reserveCapacity(36)
        for (index, digit) in bytes.withUnsafeBytes({ Hex.string($0) }).utf8.enumerated() {
            if index == 8 || index == 12 || index == 16 || index == 20 { text.append(UInt8(ascii: "-")) }
            text.append(digit)
        }
        return String(decoding: text, as: UTF8.self)
    }
}
