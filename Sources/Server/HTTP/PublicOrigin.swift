import HTTPTypes
import Hummingbird

/// Where people outside reach this server, for links handed out (share links, the report's QR code):
/// `serve --public-url` when set (also without email). Otherwise only a trusted reverse proxy (one named by
/// `--trusted-proxy`, as `ClientAddress` believes) may say it: the Host it passes
/// and `X-Forwarded-Proto: https`. A client reaching the server directly gets the listen address: its
/// own Host header is its word, and a link built from it could point anywhere.
enum PublicOrigin {
    static func of(_ request: Request, context: AppContext, state: ServerState) -> String {
        of(configured: state.options.publicURL ?? state.options.mail?.publicURL, peer: context.remoteAddress?.ipAddress,
           host: request.head.authority ?? request.headers[HTTPField.Name("Host")!],
           forwardedProto: request.headers[HTTPField.Name("X-Forwarded-Proto")!],
           trusted: state.options.trustedProxies, listen: "\(state.options.host):\(state.options.port)")
    }

    /// Pure: the origin from the configuration and what the connection says.
    static func of(configured: String?, peer: String?, host: String?, forwardedProto: String?, trusted: TrustedProxies, listen: String) -> String {
        if let configured { return configured }
        guard trusted.believes(peer: peer), let host, isHost(host) else { return "http://\(listen)" }
        return "\(forwardedProto?.lowercased() == "https" ? "https" : "http")://\(host)"
    }

    /// A host name or address with an optional port, nothing that could end the authority part of a URL.
    static func isHost(_ text: String) -> Bool {
        !text.isEmpty && text.count <= 255 && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-.:[]".contains($0)) }
    }
}
