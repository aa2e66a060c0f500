import BikebeaconAPI
import Crypto
import Foundation
import Testing
@testable import Server

/// The pure pieces of notifications: Web Push encryption and VAPID, the SSRF address rule, the no-spam window.
@Suite struct PushCoreTests {
    static func bytes(_ text: String) throws -> Data { try #require(Base64URL.decode(text)) }

    /// RFC 8291 appendix A: fixed keys and salt give exactly the RFC's message.
    @Test func rfc8291AppendixA() throws {
        let server = try P256.KeyAgreement.PrivateKey(rawRepresentation: try Self.bytes("yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"))
        #expect(Base64URL.encode(server.publicKey.x963Representation)
            == "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8")
        let client = try WebPushEncryption.clientKey(try Self.bytes(
            "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"))
        let body = try WebPushEncryption.encrypt(Array("When I grow up, I want to be a watermelon".utf8), clientKey: client,
                                                 auth: try Self.bytes("BTBZMqHH6r4Tts7J_aSIgg"), serverKey: server,
                                                 salt: Array(try Self.bytes("DGv6ra1nlYgDCS1FRnbzlw")))
        #expect(Base64URL.encode(body) == "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN")
    }

    @Test func badSubscriptionKeysAreRefused() throws {
        #expect(throws: WebPushEncryption.Failure.badClientKey) { try WebPushEncryption.clientKey(Data(repeating: 4, count: 65)) }
        #expect(throws: WebPushEncryption.Failure.badClientKey) { try WebPushEncryption.clientKey(Data([4, 1, 2])) }
        let client = P256.KeyAgreement.PrivateKey().publicKey
        #expect(throws: WebPushEncryption.Failure.badAuthSecret) {
            try WebPushEncryption.encrypt([1], clientKey: client, auth: Data(count: 8))
        }
        #expect(throws: WebPushEncryption.Failure.tooLarge(5000)) {
            try WebPushEncryption.encrypt(Array(repeating: 0, count: 5000), clientKey: client, auth: Data(count: 16))
        }
    }

    /// The JWT carries aud/exp/sub and an ES256 signature (raw r ‖ s) that the public key `k` verifies.
    @Test func vapidTokenVerifies() throws {
        let key = P256.Signing.PrivateKey()
        let vapid = VAPID(key: key, subject: "mailto:ops@example.org")
        let header = try vapid.authorization(audience: "https://push.example.net", nowSeconds: 1_800_000_000)
        let token = try #require(header.split(separator: " ").dropFirst().first).dropFirst(2).dropLast()
        #expect(header.hasSuffix(", k=\(vapid.publicKey)"))
        let parts = token.split(separator: ".").map(String.init)
        try #require(parts.count == 3)
        let claims = try JSONDecoder().decode(VAPID.Claims.self, from: try Self.bytes(parts[1]))
        #expect(claims == VAPID.Claims(aud: "https://push.example.net", exp: 1_800_000_000 + 12 * 3600, sub: "mailto:ops@example.org"))
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: try Self.bytes(parts[2]))
        #expect(key.publicKey.isValidSignature(signature, for: Data("\(parts[0]).\(parts[1])".utf8)))
        #expect(!key.publicKey.isValidSignature(signature, for: Data("\(parts[0]).x".utf8)))
    }

    @Test func vapidAudienceIsTheOrigin() throws {
        let cases = [
            ("https://fcm.googleapis.com/fcm/send/abc:def", "https://fcm.googleapis.com"),
            ("https://Updates.Push.Services.Mozilla.com:443/wpush/v2/x", "https://updates.push.services.mozilla.com"),
            ("http://127.0.0.1:8443/push/1", "http://127.0.0.1:8443"),
            ("http://[::1]:9000/p", "http://[::1]:9000"),
        ]
        for (endpoint, origin) in cases {
            #expect(VAPID.audience(of: try #require(URL(string: endpoint))) == origin, "\(endpoint)")
        }
    }

    /// Every spelling resolves (getaddrinfo) to the address it means, and the address decides.
    @Test func forbiddenTargetsInEverySpelling() async throws {
        let expected: [(String, TargetAddress)] = [
            ("127.0.0.1", .loopback), ("127.1", .loopback), ("2130706433", .loopback), ("0177.0.0.1", .loopback),
            ("0x7f.0.0.1", .loopback), ("0x7f000001", .loopback), ("::1", .loopback), ("::ffff:127.0.0.1", .loopback),
            ("::ffff:7f00:1", .loopback), ("64:ff9b::7f00:1", .loopback), ("2002:7f00:1::", .loopback), ("localhost", .loopback),
            ("169.254.169.254", .metadata), ("0xa9fea9fe", .metadata), ("2852039166", .metadata), ("0251.0376.0251.0376", .metadata),
            ("::ffff:169.254.169.254", .metadata), ("fd00:ec2::254", .metadata),
            ("10.1.2.3", .private), ("012.1.2.3", .private), ("172.16.0.1", .private), ("172.31.255.255", .private),
            ("192.168.0.10", .private), ("100.64.0.1", .private), ("100.127.255.254", .private), ("169.254.1.1", .private),
            ("fc00::1", .private), ("fd12:3456::1", .private), ("fe80::1", .private), ("::ffff:10.0.0.1", .private),
            ("224.0.0.251", .multicast), ("239.255.255.250", .multicast), ("ff02::1", .multicast),
            ("0.0.0.0", .reserved), ("0", .reserved), ("::", .reserved), ("255.255.255.255", .reserved), ("192.0.2.1", .reserved),
            ("2001:db8::1", .reserved), ("198.18.0.1", .reserved),
            ("8.8.8.8", .public), ("93.184.216.34", .public), ("100.128.0.1", .public), ("172.32.0.1", .public),
            ("2606:4700:4700::1111", .public), ("::ffff:8.8.8.8", .public),
        ]
        for (host, kind) in expected {
            let addresses = try await OutboundHTTP.resolve(host)
            #expect(addresses.allSatisfy { TargetAddress.classify($0) == kind }, "\(host) → \(addresses.map(OutboundHTTP.text))")
        }
    }

    @Test func privateTargetsOnlyWithTheFlag() async throws {
        let strict = OutboundHTTP(allowPrivateTargets: false)
        let relaxed = OutboundHTTP(allowPrivateTargets: true)
        for host in ["127.0.0.1", "2130706433", "[::1]", "10.0.0.1", "::ffff:192.168.1.1"] {
            await #expect(throws: OutboundHTTP.Refused.self, "\(host)") { try await strict.checkSaved(host: OutboundHTTP.unbracketed(host)) }
            try await relaxed.checkSaved(host: OutboundHTTP.unbracketed(host))
        }
        for host in ["169.254.169.254", "fd00:ec2::254", "224.0.0.1", "0.0.0.0"] {
            await #expect(throws: OutboundHTTP.Refused.self, "\(host)") { try await relaxed.checkSaved(host: host) }
        }
        try await strict.checkSaved(host: "8.8.8.8")
        // A name that does not resolve now is checked at send time instead.
        try await strict.checkSaved(host: "push.invalid")
    }

    static func event(_ event: OwnerNotification.Event = .arrived, time: String = "2026-11-22T10:00:00.000Z") -> OwnerNotification {
        OwnerNotification(event: event, bikeId: "b1", bikeName: "Commuter", ownerId: "o1", place: "Cafe Rosa",
                          latitude: 52.09, longitude: 5.12, time: time, zone: "near")
    }

    /// The first event goes out, the next ones within the window are held back and folded into one summary.
    @Test func oneNotificationPerWindow() {
        let interval: Int64 = 30 * 60_000
        let first = NotificationPolicy.offer(Self.event(), window: nil, now: 1_000, interval: interval)
        #expect(first.send == Self.event())
        let second = NotificationPolicy.offer(Self.event(.departed), window: first.window, now: 61_000, interval: interval)
        #expect(second.send == nil)
        let third = NotificationPolicy.offer(Self.event(.arrived, time: "x"), window: second.window, now: 121_000, interval: interval)
        #expect(third.send == nil && third.window.pending?.count == 2 && third.window.pending?.time == "x")
        #expect(NotificationPolicy.flush(third.window, now: interval, interval: interval).send == nil)
        let flushed = NotificationPolicy.flush(third.window, now: 1_000 + interval, interval: interval)
        #expect(flushed.send?.count == 2 && flushed.send?.event == .arrived)
        #expect(flushed.window == NotificationWindow(lastSentMilliseconds: 1_000 + interval, pending: nil))
        #expect(NotificationPolicy.flush(flushed.window, now: 10 * interval, interval: interval).send == nil)
    }

    /// An event after the window, with events still held back, goes out at once and counts them.
    @Test func lateEventCarriesTheHeldBackOnes() {
        let interval: Int64 = 1_000
        let held = NotificationWindow(lastSentMilliseconds: 0, pending: Self.event(.departed))
        let decision = NotificationPolicy.offer(Self.event(.arrived), window: held, now: 5_000, interval: interval)
        #expect(decision.send?.count == 2 && decision.send?.event == .arrived)
        #expect(decision.window == NotificationWindow(lastSentMilliseconds: 5_000, pending: nil))
    }

    @Test func payloadStaysSmall() throws {
        var notification = Self.event()
        notification.bikeName = String(repeating: "\u{1F6B2}", count: 200)
        notification.place = String(repeating: "\u{0001}", count: 200)
        #expect(try notification.json().utf8.count <= OwnerNotification.maxPayloadBytes)
        notification.bikeName = String(repeating: "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}\u{200D}\u{1F466}", count: 200)
        #expect(try notification.json().utf8.count <= OwnerNotification.maxPayloadBytes)
    }
}
