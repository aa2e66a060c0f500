import Crypto
import Foundation

/// RFC 8292 voluntary application server identification: an ES256 JWT for each push service
/// origin, sent as `Authorization: vapid t=JWT, k=PUBLIC_KEY`. Pure: the time is an input.
struct VAPID: Sendable {
    /// The private key's raw scalar (swift-crypto's key type is not Sendable).
    let rawKey: Data
    /// `mailto:` or `https:` contact for the push service's operators.
    let subject: String
    /// The application server key as browsers want it for `applicationServerKey` and `k=`.
    let publicKey: String

    init(key: P256.Signing.PrivateKey, subject: String) {
        rawKey = key.rawRepresentation
        self.subject = subject
        publicKey = Base64URL.encode(key.publicKey.x963Representation)
    }

    /// Push services refuse tokens valid for more than 24 h; 12 h leaves room for clock skew.
    static let lifetimeSeconds: Int64 = 12 * 3600

    struct Claims: Codable, Equatable {
        var aud: String
        var exp: Int64
        var sub: String
    }

    /// The audience is the endpoint's origin: scheme://host[:port], without a default port.
    static func audience(of endpoint: URL) -> String? {
        guard let scheme = endpoint.scheme?.lowercased(), let host = endpoint.host, !host.isEmpty else { return nil }
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        var origin = "\(scheme)://\(bracketed.lowercased())"
        if let port = endpoint.port, !(scheme == "https" && port == 443), !(scheme == "http" && port == 80) {
            origin += ":\(port)"
        }
        return origin
    }

    /// The JWT: base64url(header).base64url(claims).base64url(r ‖ s).
    func token(audience: String, nowSeconds: Int64) throws -> String {
        let header = Base64URL.encode(Data(#"{"typ":"JWT","alg":"ES256"}"#.utf8))
        let claims = Base64URL.encode(try JSONResponse.encoder.encode(
            Claims(aud: audience, exp: nowSeconds + Self.lifetimeSeconds, sub: subject)))
        let input = "\(header).\(claims)"
        let signature = try P256.Signing.PrivateKey(rawRepresentation: rawKey).signature(for: Data(input.utf8))
        return "\(input).\(Base64URL.encode(signature.rawRepresentation))"
    }

    func authorization(audience: String, nowSeconds: Int64) throws -> String {
        "vapid t=\(try token(audience: audience, nowSeconds: nowSeconds)), k=\(publicKey)"
    }
}
