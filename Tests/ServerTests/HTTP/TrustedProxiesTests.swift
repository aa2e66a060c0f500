import Testing
import TestSupport
@testable import Server

/// `serve --trusted-proxy` (#43): addresses and CIDR blocks, IPv4 and IPv6, parsed strictly; bad input names the value.
@Suite struct TrustedProxiesTests {
    @Test func addressesAndBlocksAreParsed() throws {
        let proxies = try TrustedProxies(parsing: ["127.0.0.1", "::1", "10.0.0.0/8, 2001:db8::/32", "192.0.2.128/25"])
        #expect(proxies.ranges.map(\.description) == ["127.0.0.1/32", "0:0:0:0:0:0:0:1/128", "10.0.0.0/8", "2001:db8:0:0:0:0:0:0/32",
                                                     "192.0.2.128/25"])
        for believed in ["127.0.0.1", "::1", "::ffff:127.0.0.1", "10.255.3.4", "2001:db8:ffff::9", "192.0.2.200"] {
            #expect(proxies.believes(peer: believed), "\(believed)")
        }
        for doubted in ["127.0.0.2", "::2", "11.0.0.1", "2001:db9::1", "192.0.2.127", "/run/bikebeacon.sock", ""] {
            #expect(!proxies.believes(peer: doubted), "\(doubted)")
        }
        #expect(!proxies.believes(peer: nil))
        // /0 is every address of its family, and only of that one.
        let everyIPv4 = try TrustedProxies(parsing: ["0.0.0.0/0"])
        #expect(everyIPv4.believes(peer: "203.0.113.9") && !everyIPv4.believes(peer: "2001:db8::1"))
    }

    @Test func noneIsTheDefaultAndLoopbackIsNamed() {
        #expect(ServerOptions().trustedProxies == .none)
        #expect(!TrustedProxies.none.believes(peer: "127.0.0.1"))
        #expect(TrustedProxies.loopback.believes(peer: "127.0.0.1") && TrustedProxies.loopback.believes(peer: "127.8.9.10")
                && TrustedProxies.loopback.believes(peer: "::1"))
        #expect(!TrustedProxies.loopback.believes(peer: "::2") && !TrustedProxies.loopback.believes(peer: "128.0.0.1"))
    }

    @Test func badValuesAreRefusedByName() {
        let cases: [(String, String)] = [
            ("localhost", "'localhost' is not an IP address or CIDR block"),
            ("", "'' is not an IP address or CIDR block"),
            ("10.0.0.0/33", "'10.0.0.0/33': the prefix length after '/' must be 0…32"),
            ("::/129", "'::/129': the prefix length after '/' must be 0…128"),
            ("10.0.0.0/-1", "'10.0.0.0/-1': the prefix length"),
            ("10.0.0.0/+8", "'10.0.0.0/+8': the prefix length"),
            ("10.0.0.0/", "'10.0.0.0/': the prefix length"),
            ("10.0.0.0/8/8", "'10.0.0.0/8/8' is not an IP address"),
            ("10.1.2.3/8", "'10.1.2.3/8' has bits set past its /8 prefix; give the block's first address (10.0.0.0/8)"),
            ("2001:db8::1/64", "'2001:db8::1/64' has bits set past its /64 prefix"),
            ("[::1]", "'[::1]' is not an IP address"),
            ("127.0.0.1:8080", "'127.0.0.1:8080' is not an IP address"),
            ("fe80::1%eth0", "'fe80::1%eth0' is not an IP address"),
        ]
        for (value, start) in cases {
            do {
                _ = try TrustedProxies(parsing: ["127.0.0.1,\(value)"])
                Issue.record("took \(value)")
            } catch {
                #expect(error.description.hasPrefix(start), "\(value): \(error.description)")
            }
        }
    }

    /// `serve` itself: the old flag, which believed every peer, is refused with what to give instead; a bad block is named.
    @Test func serveRefusesTheOldFlagAndBadBlocks() async throws {
        let old = try await run("bikebeacon-server", ["serve", "--trust-proxy"])
        #expect(old.status != 0 && old.stderr.contains("--trust-proxy is gone") && old.stderr.contains("--trusted-proxy 127.0.0.1,::1"), "\(old.stderr)")
        let bad = try await run("bikebeacon-server", ["serve", "--trusted-proxy", "127.0.0.1", "--trusted-proxy", "::1,10.1.2.3/8"])
        #expect(bad.status != 0 && bad.stderr.contains("--trusted-proxy '10.1.2.3/8' has bits set past its /8 prefix"), "\(bad.stderr)")
    }
}
