/// Where an IP address points, for deciding which outbound targets (webhooks, push endpoints) a
/// server may call: the SSRF rule. Pure; works on the raw 4 or 16 address bytes, so every textual
/// spelling (decimal, octal, hex, IPv4-mapped IPv6, …) is judged by the address it resolves to.
enum TargetAddress: String, Sendable, Equatable {
    case `public`
    case loopback
    /// RFC 1918, CGNAT (100.64/10), unique local (fc00::/7), link-local.
    case `private`
    /// Cloud instance metadata (169.254.169.254, fd00:ec2::254): never reachable, whatever the flag.
    case metadata
    case multicast
    /// Unspecified, documentation, benchmarking, broadcast and other special-purpose ranges.
    case reserved

    /// Whether a target of this kind may be called; `--allow-private-targets` opens loopback and private.
    func allowed(privateTargets: Bool) -> Bool {
        switch self {
        case .public: true
        case .loopback, .private: privateTargets
        case .metadata, .multicast, .reserved: false
        }
    }

    /// Classifies 4 (IPv4) or 16 (IPv6) address bytes; any other length is `reserved`.
    static func classify(_ bytes: [UInt8]) -> TargetAddress {
        switch bytes.count {
        case 4: classify(v4: bytes[0], bytes[1], bytes[2], bytes[3])
        case 16: classify(v6: bytes)
        default: .reserved
        }
    }

    private static func classify(v4 a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) -> TargetAddress {
        if a == 169, b == 254, c == 169, d == 254 { return .metadata }
        if a == 127 { return .loopback }
        if a == 10 || (a == 172 && b & 0xF0 == 16) || (a == 192 && b == 168) || (a == 100 && b & 0xC0 == 64)
            || (a == 169 && b == 254) { return .private }
        if a >= 224 && a <= 239 { return .multicast }
        if a == 0 || a >= 240 || (a == 192 && b == 0 && (c == 0 || c == 2)) || (a == 198 && b & 0xFE == 18)
            || (a == 198 && b == 51 && c == 100) || (a == 203 && b == 0 && c == 113) || (a == 192 && b == 88 && c == 99) {
            return .reserved
        }
        return .public
    }

    private static func classify(v6 x: [UInt8]) -> TargetAddress {
        let metadata: [UInt8] = [0xfd, 0x00, 0x0e, 0xc2] + Array(repeating: 0, count: 10) + [0x02, 0x54]
        if x == metadata { return .metadata }
        if x[0..<15].allSatisfy({ $0 == 0 }) && x[15] == 1 { return .loopback }
        // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) carry an IPv4 target.
        if x[0..<10].allSatisfy({ $0 == 0 }) && ((x[10] == 0xff && x[11] == 0xff) || (x[10] == 0 && x[11] == 0)) {
            return classify(Array(x[12..<16]))
        }
        if x[0..<12] == [0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0] { return classify(Array(x[12..<16])) }
        // 6to4 (2002:V4ADDR::/48) embeds one too.
        if x[0] == 0x20 && x[1] == 0x02 { return classify(Array(x[2..<6])) }
        if x[0] == 0xff { return .multicast }
        if x[0] & 0xFE == 0xfc || (x[0] == 0xfe && x[1] & 0x80 == 0x80) { return .private }  // fc00::/7, fe80::/10 and fec0::/10
        if (x[0] == 0x20 && x[1] == 0x01 && x[2] == 0x0d && x[3] == 0xb8)   // documentation
            || (x[0] == 0x20 && x[1] == 0x01 && x[2] == 0 && x[3] == 0)      // Teredo hides an IPv4 target
            || (x[0] == 0x00 && x[1] == 0x64 && x[2] == 0xff && x[3] == 0x9b) // local-use NAT64
            || (x[0] == 0x01 && x[1..<8].allSatisfy { $0 == 0 })            // discard-only
            || x[0] == 0 {
            return .reserved
        }
        return .public
    }
}
