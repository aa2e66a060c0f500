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
        guard header.hasPrefix("sha256="), let mac = Hex.bytes(header.dropFirst("sha256=".count)) else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: body, using: SymmetricKey(data: Data(secret.utf8)))
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
