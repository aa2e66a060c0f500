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

    static func digest(_ token: String) -> String {
        Hex.string(SHA256.hash(data: Data(token.utf8)))
    }

    /// A new random identifier for rows the server creates.
    static func id() -> String { UUID().uuidString.lowercased() }
}
