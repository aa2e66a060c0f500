import Foundation

/// base64url without padding (RFC 4648 §5), as Web Push keys, VAPID and tokens use it.
enum Base64URL {
    static func encode(_ bytes: some DataProtocol) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Accepts padded or unpadded input; nil for anything that is not base64url (or plain base64).
    static func decode(_ text: String) -> Data? {
        var base = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base = base.trimmingCharacters(in: CharacterSet(charactersIn: "="))
        base += String(repeating: "=", count: (4 - base.count % 4) % 4)
        return Data(base64Encoded: base)
    }
}
