import HTTPTypes
import Hummingbird

/// Where people outside reach this server, for links handed out (share links, the report's QR code):
/// `serve --public-url` when set, else the scheme and host the request came in on.
enum PublicOrigin {
    static func of(_ request: Request, state: ServerState) -> String {
        if let configured = state.options.mail?.publicURL { return configured }
        let host = request.head.authority ?? request.headers[HTTPField.Name("Host")!] ?? "\(state.options.host):\(state.options.port)"
        let forwarded = state.options.trustProxy ? request.headers[HTTPField.Name("X-Forwarded-Proto")!] : nil
        return "\(forwarded == "https" ? "https" : "http")://\(host)"
    }
}
