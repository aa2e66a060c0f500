import Foundation

/// Where and how to reach the mail server, from `smtp://[user:pass@]host[:port]` (STARTTLS when
/// offered, port 25 by default) or `smtps://…` (TLS from the first byte, port 465).
public struct SMTPURL: Sendable, Equatable, CustomStringConvertible {
    public enum Security: Sendable, Equatable {
        case startTLSWhenOffered
        case implicitTLS
    }

    public var host: String
    public var port: Int
    public var security: Security
    public var username: String?
    public var password: String?

    public init(host: String, port: Int, security: Security, username: String? = nil, password: String? = nil) {
        self.host = host
        self.port = port
        self.security = security
        self.username = username
        self.password = password
    }

    public init(parsing text: String) throws(SMTPError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            throw .invalidURL("'\(text)' is not a URL")
        }
        switch scheme {
        case "smtp": security = .startTLSWhenOffered
        case "smtps": security = .implicitTLS
        default: throw .invalidURL("scheme '\(scheme)' is neither smtp nor smtps")
        }
        guard let host = components.host, !host.isEmpty else { throw .invalidURL("no host") }
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let port = components.port ?? (security == .implicitTLS ? 465 : 25)
        guard (1...65535).contains(port) else { throw .invalidURL("port \(port) is out of range") }
        self.port = port
        guard components.path.isEmpty || components.path == "/" else { throw .invalidURL("a path has no meaning here") }
        username = components.user?.removingPercentEncoding
        password = components.password?.removingPercentEncoding
        if (username == nil) != (password == nil) { throw .invalidURL("give both user and password, or neither") }
    }

    /// The URL without the password, for logs.
    public var description: String {
        "\(security == .implicitTLS ? "smtps" : "smtp")://\(username.map { "\($0)@" } ?? "")\(host):\(port)"
    }
}
