import BikebeaconAPI
import Durable
import Foundation
import Testing
@testable import Server

/// The pure pieces: timestamps, throttles, backoff, signatures, validation, CSV.
@Suite struct CoreTests {
    @Test func rfc3339RoundTrips() {
        #expect(Timestamp.parse("1970-01-01T00:00:00Z") == 0)
        #expect(Timestamp.parse("2026-11-21T22:13:44.5Z") == 1_795_299_224_500)
        #expect(Timestamp.parse("2026-11-21T23:13:44.500+01:00") == 1_795_299_224_500)
        #expect(Timestamp.parse("2024-02-29T12:00:00-00:30") == Timestamp.parse("2024-02-29T12:30:00Z"))
        #expect(Timestamp.format(milliseconds: 1_795_299_224_500) == "2026-11-21T22:13:44.500Z")
        #expect(Timestamp.format(milliseconds: -1) == "1969-12-31T23:59:59.999Z")
        for bad in ["", "2026-11-21", "2026-11-21T22:13:44", "2026-13-01T00:00:00Z", "2025-02-29T00:00:00Z",
                    "2026-11-21T24:00:00Z", "2026-11-21T22:13:44.Z", "2026-11-21T22:13:44+0100", "2026-11-21T22:13:44Zjunk",
                    "２０２６-11-21T22:13:44Z"] {
            #expect(Timestamp.parse(bad) == nil, "accepted \(bad)")
        }
    }

    @Test func loginThrottleWaitsOutTheWindow() {
        let throttle = LoginThrottle(maxFailures: 3, maxPerEmail: 10, maxPerClient: 5, windowMilliseconds: 60_000)
        func refusal(pair: [Int64], email: Int? = nil, client: [Int64]? = nil, now: Int64) -> LoginThrottle.Refusal? {
            throttle.refusal(.init(pair: pair, email: email ?? pair.count, client: client ?? pair), now: now)
        }
        #expect(refusal(pair: [1_000, 2_000], now: 3_000) == nil)
        #expect(refusal(pair: [1_000, 2_000, 3_000], now: 4_000) == .email(wait: 57_000))
        #expect(refusal(pair: [1_000, 2_000, 3_000], now: 61_001) == nil)
        // One address over many emails: held until its fifth-newest attempt leaves the window.
        #expect(refusal(pair: [], client: [1_000, 2_000, 3_000, 4_000, 5_000], now: 6_000) == .client(wait: 55_000))
        // An email under attack from many addresses: an address that failed on it waits out its newest failure,
        // one that has not may try.
        #expect(refusal(pair: [2_000], email: 10, now: 6_000) == .email(wait: 56_000))
        #expect(refusal(pair: [], email: 10, now: 6_000) == nil)
    }

    @Test func guessablePasswordsAreRefused() {
        for weak in ["12345678", "123456789", "87654321", "aaaaaaaa", "11111111", "12121212", "abcabcabc", "Password1", "qwertyui",
                     "abcdefgh", "iloveyou", "1q2w3e4r", "P@ssw0rd"] {
            #expect(PasswordPolicy.problem(weak, field: "password") != nil, "accepted \(weak)")
        }
        for fine in ["correct horse battery", "field password 1", "a new password", "bench password", "Tr0ub4dor&3", "13572468"] {
            #expect(PasswordPolicy.problem(fine, field: "password") == nil, "refused \(fine)")
        }
        #expect(PasswordPolicy.problem("short", field: "password")?.contains("8 characters") == true)
        #expect(PasswordPolicy.problem(String(repeating: "é", count: 37), field: "password")?.contains("72 bytes") == true)
    }

    /// Row ids are version-4 UUIDs in lower case (what `UUID().uuidString.lowercased()` gave before), all different.
    @Test func rowIdsAreRandomVersion4UUIDs() {
        let ids = (0..<10_000).map { _ in Tokens.id() }
        #expect(Set(ids).count == ids.count)
        for id in ids.prefix(500) {
            let parsed = UUID(uuidString: id)
            #expect(parsed?.uuidString.lowercased() == id, "\(id)")
            let bytes = parsed.map { withUnsafeBytes(of: $0.uuid) { Array($0) } } ?? []
            #expect(bytes.count == 16 && bytes[6] >> 4 == 4 && bytes[8] >> 6 == 0b10, "\(id): not version 4, variant 1")
        }
        // Every hex digit of the random part turns up in every place (a byte-order or masking slip would fix some).
        let places = (0..<36).filter { ![8, 13, 14, 18, 19, 23].contains($0) }  // dashes, the version, the variant
        for place in places {
            let seen = Set(ids.map { Array($0.utf8)[place] })
            #expect(seen.count == 16, "place \(place) held only \(seen.count) different digits")
        }
    }

    @Test func tokenBucketRefills() {
        var bucket = TokenBucket(perSecond: 2, burst: 2, now: 0)
        // now (ms) → allowed: a burst of two, empty, one token back after 500 ms, and a clock that steps back mints none.
        let taken = [0, 0, 100, 600, 600, 0].map { bucket.take(now: Int64($0)) }
        #expect(taken == [true, true, false, true, false, false])
    }

    @Test func clientAddressIsThePeerOrWhatOurProxyAppended() {
        func key(_ peer: String?, _ forwarded: [String] = [], trusted: TrustedProxies = .loopback) -> String {
            ClientAddress.key(peer: peer, forwardedFor: forwarded, trusted: trusted)
        }
        #expect(key("198.51.100.7") == "198.51.100.7")
        #expect(key("::ffff:198.51.100.7") == "198.51.100.7")
        // IPv6 counts per /64: every address of one prefix is one client.
        #expect(key("2001:db8:1:2::1") == "2001:db8:1:2::/64")
        #expect(key("2001:DB8:1:2:ffff:ffff:ffff:ffff") == "2001:db8:1:2::/64")
        #expect(key("2001:db8:1:3::1") == "2001:db8:1:3::/64")
        // From a peer not named as a proxy the header is the client's own word, unless the operator names it.
        #expect(key("192.0.2.10", ["198.51.100.7"]) == "192.0.2.10")
        #expect(key("192.0.2.10", ["198.51.100.7"], trusted: TrustedProxies(ranges: [TrustedProxies.Range(bytes: [192, 0, 2, 0], prefixLength: 24)]))
                == "198.51.100.7")
        // Loopback too is believed only when named: by default (no --trusted-proxy) a local forwarder's clients choose nothing.
        #expect(key("127.0.0.1", ["198.51.100.7"], trusted: .none) == "127.0.0.1")
        #expect(key("::1", ["198.51.100.7"], trusted: .none) == "::/64")
        // From a named proxy (here loopback) only the last entry, the one the proxy appended, counts.
        #expect(key("127.0.0.1", ["203.0.113.1, 198.51.100.7"]) == "198.51.100.7")
        #expect(key("::1", ["203.0.113.1", "2001:db8::5"]) == "2001:db8::/64")
        #expect(key("127.0.0.1") == "127.0.0.1")
        // Anything but a bare address falls back to the peer; no peer and no address is one shared "unknown".
        for junk in ["unknown", "198.51.100.7:443", "[2001:db8::1]", "fe80::1%eth0", "", " , ", "1.2.3", "0x7f.1", "١٢٧.0.0.1"] {
            #expect(key("127.0.0.2", [junk]) == "127.0.0.2", "believed \(junk)")
        }
        #expect(key(nil) == "unknown")
        #expect(key(nil, ["198.51.100.7"]) == "unknown")
        #expect(key("/run/bikebeacon.sock") == "unknown")
    }

    @Test func deliveriesDoubleToAnHourThenGiveUp() {
        let delays = (1...12).map { Backoff.deliveries.delayMilliseconds(afterFailures: $0) }
        #expect(delays == [2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 128_000, 256_000, 512_000, 1_024_000, 2_048_000, nil])
        let capped = Backoff(initial: 1, maximum: 5, maxAttempts: 5, jitter: 0)
        #expect((1...5).map { capped.delayMilliseconds(afterFailures: $0) } == [1_000, 2_000, 4_000, 5_000, nil])
    }

    /// RFC 4231 test case 2.
    @Test func hmacMatchesRFC4231() {
        let body = Array("what do ya want for nothing?".utf8)
        let signature = WebhookSignature.sign(body: body, secret: "Jefe")
        #expect(signature == "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(WebhookSignature.verify(body: body, secret: "Jefe", header: signature.uppercased().replacingOccurrences(of: "SHA256=", with: "sha256=")))
        #expect(!WebhookSignature.verify(body: body + [0x20], secret: "Jefe", header: signature))
        #expect(!WebhookSignature.verify(body: body, secret: "Jefe", header: "sha256=zz"))
    }

    @Test func sightingValidationRejectsEachBadItemAlone() throws {
        let good = Fixture.sighting(id: "7E57C0DE-0000-4000-8000-000000000001")
        var late = good
        late.id = "7E57C0DE-0000-4000-8000-000000000002"
        late.firstSeen = "2026-11-21T11:00:00Z"
        var noZone = good
        noZone.id = "7E57C0DE-0000-4000-8000-000000000003"
        noZone.zone = "kitchen"
        // Round-trip through JSON, as the server receives them.
        let items = try [good, late, noZone, good].map {
            try JSONDecoder().decode(LenientSightingItem.self, from: JSONEncoder().encode($0))
        }
        let (valid, rejected) = SightingValidation.validate(items, from: SightingSource(enrolledAt: Fixture.enrolled, roaming: false), now: 1_900_000_000_000)
        #expect(valid.map(\.clientID) == ["7e57c0de-0000-4000-8000-000000000001"])
        #expect(rejected.map(\.id) == [late.id, noZone.id])
        #expect(rejected[0].reason.contains("firstSeen"))
        let notAnObject = try? JSONDecoder().decode(SightingBatch<LenientSightingItem>.self, from: Data(#"{"sightings":[42]}"#.utf8))
        #expect(notAnObject.map { SightingValidation.validate($0.sightings, from: SightingSource(enrolledAt: Fixture.enrolled, roaming: false), now: 1_900_000_000_000).rejected.count } == 1)
    }

    @Test func csvQuotesAndDefusesFormulas() {
        #expect(SightingExport.field("plain") == "plain")
        #expect(SightingExport.field("a,b") == "\"a,b\"")
        #expect(SightingExport.field("say \"hi\"") == "\"say \"\"hi\"\"\"")
        #expect(SightingExport.field("=HYPERLINK(\"x\")") == "\"'=HYPERLINK(\"\"x\"\")\"")
        #expect(SightingExport.field("-67") == "-67")
    }

    @Test func databaseURLs() throws {
        #expect(try DatabaseURL(parsing: "sqlite://./bikebeacon.sqlite") == .sqlite(path: "./bikebeacon.sqlite"))
        #expect(try DatabaseURL(parsing: "sqlite:///var/lib/bb.sqlite") == .sqlite(path: "/var/lib/bb.sqlite"))
        #expect(try DatabaseURL(parsing: "postgres://u:secret@h/db").description == "postgres://u:***@h/db")
        #expect(throws: DatabaseURLError.self) { try DatabaseURL(parsing: "mysql://x") }
        #expect(throws: DatabaseURLError.self) { try DatabaseURL(parsing: "sqlite://") }
    }
}
