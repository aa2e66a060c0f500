#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where the broker is and how to log in, from `mqtt://user:pass@host:1883` or `mqtts://…`.
public struct MQTTBrokerAddress: Equatable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var tls: Bool
    public var username: String?
    public var password: String?

    public init(host: String, port: Int, tls: Bool, username: String? = nil, password: String? = nil) {
        self.host = host
        self.port = port
        self.tls = tls
        self.username = username
        self.password = password
    }

    /// Nil unless the URL is mqtt:// or mqtts:// with a host; the port defaults to 1883 / 8883.
    public init?(url: String) {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
              ["mqtt", "mqtts"].contains(scheme), let host = components.host, !host.isEmpty else { return nil }
        tls = scheme == "mqtts"
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        port = components.port ?? (tls ? 8883 : 1883)
        guard (1...65535).contains(port) else { return nil }
        username = components.user
        password = components.password
    }

    /// The address without the password, for logs.
    public var description: String {
        "\(tls ? "mqtts" : "mqtt")://\(username.map { "\($0)@" } ?? "")\(host):\(port)"
    }
}

extension MQTTBrokerAddress {
    /// `url` with any password replaced by `***`, for error messages about a URL that did not parse.
    public static func redacted(_ url: String) -> String {
        guard let at = url.firstIndex(of: "@"), let scheme = url.firstRange(of: "://"), scheme.upperBound < at,
              let colon = url[scheme.upperBound..<at].firstIndex(of: ":") else { return url }
        return String(url[..<url.index(after: colon)]) + "***" + String(url[at...])
    }
}
