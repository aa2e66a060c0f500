import Foundation

/// The reverse proxies whose word about the client is believed (`serve --trusted-proxy`): their
/// `X-Forwarded-For` (`ClientAddress`), Host and `X-Forwarded-Proto` (`PublicOrigin`). None by default,
/// loopback included: a TCP or TLS forwarder on the same host (stunnel, `ssh -L`, an onion service,
/// HAProxy in TCP mode) connects from loopback too, and would let every client choose its own address.
/// Pure.
public struct TrustedProxies: Sendable, Equatable {
    /// An address block: `bytes` (4 for IPv4, 16 for IPv6) whose first `prefixLength` bits must match.
    public struct Range: Sendable, Equatable, CustomStringConvertible {
        public var bytes: [UInt8]
        public var prefixLength: Int

        /// Whether `address` (as `ClientAddress.bytes(ip:)` gives it) lies in the block; IPv4 never matches IPv6.
        public func contains(_ address: [UInt8]) -> Bool {
            guard address.count == bytes.count else { return false }
            var bits = prefixLength
            for (a, b) in zip(address, bytes) where bits > 0 {
                let mask: UInt8 = bits >= 8 ? 0xff : ~(0xff >> UInt8(bits))
                guard a & mask == b & mask else { return false }
                bits -= 8
            }
            return true
        }

        public var description: String {
            let address = bytes.count == 4 ? bytes.map(String.init).joined(separator: ".")
                : stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }.joined(separator: ":")
            return "\(address)/\(prefixLength)"
        }
    }

    /// Why a `--trusted-proxy` value was refused, naming it.
    public struct Refusal: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    public var ranges: [Range]

    public init(ranges: [Range] = []) {
        self.ranges = ranges
    }

    /// Believe no one: what `serve` does unless told.
    public static let none = TrustedProxies()

    /// 127.0.0.0/8 and ::1: a reverse proxy on this host, as the packaged unit and nginx site name it.
    public static let loopback = TrustedProxies(ranges: [Range(bytes: [127, 0, 0, 0], prefixLength: 8),
                                                         Range(bytes: [UInt8](repeating: 0, count: 15) + [1], prefixLength: 128)])

    /// The proxies from `--trusted-proxy` values, each an address or a CIDR block (`10.0.0.0/8`,
    /// `2001:db8::/32`), several to a value when separated by commas.
    public init(parsing values: [String]) throws(Refusal) {
        var ranges: [Range] = []
        for value in values {
            for item in value.split(separator: ",", omittingEmptySubsequences: false) {
                ranges.append(try Self.range(String(item).trimmingCharacters(in: .whitespaces)))
            }
        }
        self.init(ranges: ranges)
    }

    /// One address (a block of one) or `ADDRESS/BITS`; the address bits beyond the prefix must be zero,
    /// so that `10.1.2.3/8` (a typo for which block?) is refused rather than guessed.
    public static func range(_ text: String) throws(Refusal) -> Range {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let bytes = ClientAddress.bytes(ip: String(parts[0])) else {
            throw Refusal(description: "'\(text)' is not an IP address or CIDR block; give e.g. 127.0.0.1, ::1 or 10.0.0.0/8")
        }
        let bits = bytes.count * 8
        guard parts.count == 2 else { return Range(bytes: bytes, prefixLength: bits) }
        guard let prefix = Int(parts[1]), parts[1].allSatisfy(\.isASCII), parts[1].allSatisfy(\.isNumber), (0...bits).contains(prefix) else {
            throw Refusal(description: "'\(text)': the prefix length after '/' must be 0…\(bits)")
        }
        let first = masked(bytes, prefix)
        guard first == bytes else {
            throw Refusal(description: "'\(text)' has bits set past its /\(prefix) prefix; give the block's first address (\(Range(bytes: first, prefixLength: prefix)))")
        }
        return Range(bytes: bytes, prefixLength: prefix)
    }

    /// Whether the connection's peer is one of the proxies; a peer that is no IP address (a Unix socket) never is.
    public func believes(peer: String?) -> Bool {
        guard let address = peer.flatMap(ClientAddress.bytes(ip:)) else { return false }
        return ranges.contains { $0.contains(address) }
    }

    private static func masked(_ bytes: [UInt8], _ prefix: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let bits = prefix - index * 8
            return bits >= 8 ? byte : bits <= 0 ? 0 : byte & ~(0xff >> UInt8(bits))
        }
    }
}
