#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import HTTPTypes

/// Whom a per-client limit counts against. Pure: the caller supplies the connection's peer and headers.
///
/// Behind a reverse proxy every connection comes from the proxy, so the client is the last address of
/// `X-Forwarded-For`: the one our proxy appended. Entries left of it are whatever the client sent and prove
/// nothing. The header is believed only from a peer the operator named (`TrustedProxies`, `serve --trusted-proxy`;
/// the packaged unit names loopback); from any other peer it is the client's own word and ignored.
/// An IPv6 client counts per /64, the block one home or phone is given, so walking through a prefix's
/// addresses does not multiply the allowance.
enum ClientAddress {
    /// A stable key for the client: `203.0.113.7`, `2001:db8:1:2::/64`, or `unknown` when neither the
    /// peer nor a believed header is an IP address (a Unix socket, an in-process request).
    static func key(peer: String?, forwardedFor: [String], trusted: TrustedProxies) -> String {
        let peerBytes = peer.flatMap(bytes(ip:))
        if trusted.believes(peer: peer),
           let last = forwardedFor.last?.split(separator: ",").last,
           let client = bytes(ip: last.trimmingCharacters(in: .whitespaces)) {
            return key(client)
        }
        return peerBytes.map(key) ?? "unknown"
    }

    /// The address's 4 bytes (IPv4, also when mapped into IPv6) or 16; nil unless `text` is a bare address
    /// (no port, no brackets, no zone).
    static func bytes(ip text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        // ::ffff:a.b.c.d is that IPv4 client, as a dual-stack socket reports it.
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff { return Array(bytes[12...]) }
        return bytes
    }

    private static func key(_ bytes: [UInt8]) -> String {
        guard bytes.count == 16 else { return bytes.map(String.init).joined(separator: ".") }
        var prefix = in6_addr()
        withUnsafeMutableBytes(of: &prefix) { $0.copyBytes(from: bytes[0..<8] + [UInt8](repeating: 0, count: 8)) }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &prefix, &text, socklen_t(text.count)) != nil else { return "unknown" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) + "/64"
    }
}

extension HTTPField.Name {
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
}
