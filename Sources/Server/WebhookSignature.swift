import Beacon
import Crypto
import Foundation

/// The `BikeBeacon-Signature` header: `sha256=` and the hex HMAC-SHA256 of the exact body bytes,
/// keyed with the owner's webhook secret, so a receiver can tell our POSTs from forgeries.
public enum WebhookSignature {
    public static let header = "BikeBeacon-Signature"

    public static func sign(body: [UInt8], secret: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: Data(secret.utf8)))
        return "sha256=" + Hex.string(mac)
    }

    /// Constant-time check of a received signature header.
    public static func verify(body: [UInt8], secret: String, header: String) -> Bool {
        guard header.hasPrefix("sha256="), let mac = hexBytes(String(header.dropFirst("sha256=".count))) else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: body, using: SymmetricKey(data: Data(secret.utf8)))
    }

    static func hexBytes(_ text: String) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(chars.count / 2)
        for i in stride(from: 0, to: chars.count, by: 2) {
            guard let high = nibble(chars[i]), let low = nibble(chars[i + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
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

/// When to try a failed webhook delivery again: doubling from `base`, capped, then given up.
public struct Backoff: Sendable, Equatable {
    public var baseMilliseconds: Int64
    public var capMilliseconds: Int64
    public var maxAttempts: Int

    public init(baseMilliseconds: Int64 = 2_000, capMilliseconds: Int64 = 3_600_000, maxAttempts: Int = 12) {
        self.baseMilliseconds = baseMilliseconds
        self.capMilliseconds = capMilliseconds
        self.maxAttempts = maxAttempts
    }

    /// The delay before attempt `attempts + 1`, or nil when `attempts` failures mean giving up.
    public func delay(afterFailedAttempts attempts: Int) -> Int64? {
        guard attempts < maxAttempts else { return nil }
        let shift = min(max(attempts - 1, 0), 40)
        return min(capMilliseconds, baseMilliseconds << Int64(shift))
    }
}
