import Crypto
import Foundation

/// One-time enrolment codes: 100 random bits in Crockford's base32, typed on a Pi or carried in a URL.
///
/// The database keeps the code only as a SHA-256 digest (as it keeps tokens) and the sentinel's token
/// sealed with a key derived from the code: a leaked database hands out neither, and the exchange
/// returns the very token `sentinels add` printed, so enrolling rotates nothing.
enum EnrolmentCode {
    /// Crockford's alphabet: no I, L, O or U, so a code read aloud or off a screen is not mistyped.
    static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
    static let length = 20

    /// A new code, grouped by four: `K7QP-3MXD-9RTA-WZ4E-HN2B`.
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let characters = (0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }
        return stride(from: 0, to: length, by: 4).map { String(characters[$0..<$0 + 4]) }.joined(separator: "-")
    }

    /// The code as stored: upper case, without dashes or spaces, the letters Crockford reads as digits
    /// (O as 0, I and L as 1) mapped; nil when it cannot be a code.
    static func normalised(_ text: String) -> String? {
        var result = ""
        for character in text.uppercased() where character != "-" && !character.isWhitespace {
            switch character {
            case "O": result.append("0")
            case "I", "L": result.append("1")
            default:
                guard alphabet.contains(character) else { return nil }
                result.append(character)
            }
        }
        return result.count == length ? result : nil
    }

    /// The lookup key: the digest of the normalised code.
    static func digest(_ normalised: String) -> String { Tokens.digest(normalised) }

    /// The sentinel's token sealed with a key only the code gives (ChaCha20-Poly1305), base64url.
    static func seal(token: String, code normalised: String) throws -> String {
        let box = try ChaChaPoly.seal(Data(token.utf8), using: key(normalised))
        return Base64URL.encode(box.combined)
    }

    /// The token back; nil when `sealed` was not sealed with this code.
    static func open(_ sealed: String, code normalised: String) -> String? {
        guard let bytes = Base64URL.decode(sealed), let box = try? ChaChaPoly.SealedBox(combined: bytes),
              let token = try? ChaChaPoly.open(box, using: key(normalised)) else { return nil }
        return String(data: token, encoding: .utf8)
    }

    private static func key(_ normalised: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: Data(normalised.utf8)),
                               info: Data("bikebeacon sentinel enrolment".utf8), outputByteCount: 32)
    }
}
