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
