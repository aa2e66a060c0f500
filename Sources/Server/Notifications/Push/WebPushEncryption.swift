import Crypto
import Foundation

/// RFC 8291 message encryption for Web Push (`Content-Encoding: aes128gcm`, RFC 8188), one record.
/// Pure: the ephemeral key and the salt are inputs, so the RFC's appendix A is a test vector.
enum WebPushEncryption {
    enum Failure: Error, Equatable, CustomStringConvertible {
        case badClientKey
        case badAuthSecret
        case tooLarge(Int)

        var description: String {
            switch self {
            case .badClientKey: "keys.p256dh is not an uncompressed P-256 public key (65 bytes, base64url)"
            case .badAuthSecret: "keys.auth is not a 16-byte secret (base64url)"
            case let .tooLarge(bytes): "a \(bytes)-byte message does not fit one 4096-byte record"
            }
        }
    }

    static let recordSize: UInt32 = 4096
    /// Record size minus the 16-byte tag and the 1-byte padding delimiter.
    static let maxPlaintext = Int(recordSize) - 17

    /// The user agent's key from `keys.p256dh`, checked: an uncompressed point on P-256.
    static func clientKey(_ bytes: Data) throws(Failure) -> P256.KeyAgreement.PublicKey {
        guard bytes.count == 65, bytes.first == 0x04,
              let key = try? P256.KeyAgreement.PublicKey(x963Representation: bytes) else { throw .badClientKey }
        return key
    }

    static func checkAuth(_ bytes: Data) throws(Failure) {
        guard bytes.count == 16 else { throw .badAuthSecret }
    }

    /// The request body: salt ‖ rs ‖ idlen ‖ keyid (our public key) ‖ AES-128-GCM(plaintext ‖ 0x02).
    static func encrypt(_ plaintext: [UInt8], clientKey: P256.KeyAgreement.PublicKey, auth: Data,
                        serverKey: P256.KeyAgreement.PrivateKey = .init(),
                        salt: [UInt8] = randomSalt()) throws -> [UInt8] {
        try checkAuth(auth)
        guard plaintext.count <= maxPlaintext else { throw Failure.tooLarge(plaintext.count) }
        let clientPublic = clientKey.x963Representation
        let serverPublic = serverKey.publicKey.x963Representation
        let shared = try serverKey.sharedSecretFromKeyAgreement(with: clientKey)
        let ikm = shared.hkdfDerivedSymmetricKey(
            using: SHA256.self, salt: auth, sharedInfo: Data("WebPush: info\0".utf8) + clientPublic + serverPublic,
            outputByteCount: 32)
        let cek = HKDF<SHA256>.deriveKey(inputKeyMaterial: ikm, salt: salt,
                                         info: Data("Content-Encoding: aes128gcm\0".utf8), outputByteCount: 16)
        let nonce = HKDF<SHA256>.deriveKey(inputKeyMaterial: ikm, salt: salt,
                                           info: Data("Content-Encoding: nonce\0".utf8), outputByteCount: 12)
        let sealed = try AES.GCM.seal(plaintext + [0x02], using: cek,
                                      nonce: AES.GCM.Nonce(data: nonce.withUnsafeBytes { Data($0) }))
        var body = salt
        body += withUnsafeBytes(of: recordSize.bigEndian) { Array($0) }
        body.append(UInt8(serverPublic.count))
        body += serverPublic
        body += sealed.ciphertext
        body += sealed.tag
        return body
    }

    static func randomSalt() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}
