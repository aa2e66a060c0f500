import BikebeaconAPI
import Foundation
import HummingbirdTesting
import SQLKit
import Testing
import TestSupport
@testable import Server

/// "Found a tag?" (#35): anyone looks a tag up and learns only whether it is registered, writes to its owner
/// (by email, through the queue, escaped, rate-limited per client and per tag), or reports it hidden on them,
/// which seals the bike at once (`SealScenarios`, `ReportLimitScenarios`, `SealRaceScenarios`).
enum FoundTagScenarios {
    typealias Clock = PushScenarios.Clock

    static let tag = "\(Fixture.beaconA)/1/25626"

    static func lookupAndMessage(_ backend: Backend) async throws {
        let sink = try await SMTPSink.start(security: .starttls, auth: ("bikebeacon", "mail pw"))
        defer { sink.stop() }
        let clock = Clock(start: Fixture.afterSightings)
        let harness = try await Harness.make(backend, options: try MailScenarios.options(sink, clock: clock) {
            $0.foundTagClientLimit = RateLimit(perSecond: 1.0 / 3600, burst: 6)
        })
        // Over a socket from loopback, where the test options' trusted proxy is: X-Forwarded-For names each finder.
        try await harness.run(.live) { client in
            let ann = try await client.owner("ann@example.org")
            let bike = try await client.bike(ann, name: "Ann's <b>Pendler</b>")
            var serial = 0
            /// Each call from a fresh address unless told, so only the limit under test is spent.
            func post(_ path: String, _ body: some Encodable & Sendable, from address: String? = nil) async throws -> TestResponse {
                serial += 1
                return try await client.send(.post, path, json: body, headers: [.xForwardedFor: address ?? "198.51.100.\(serial)"])
            }

            // The formats the owners' paste box reads; the answer holds nothing but `registered`.
            for text in [tag, "uuid: \(Fixture.beaconA.lowercased()) major: 1 minor: 25626", "\(Fixture.beaconA):1:25626"] {
                let found = try await post("/v1/found/lookup", FoundTagLookup(tag: text))
                #expect(found.status == .ok && found.headers[.cacheControl] == "no-store")
                let keys = try #require(try JSONSerialization.jsonObject(with: Data(found.body.readableBytesView)) as? [String: Any]).keys
                #expect(Array(keys) == ["registered"])
                #expect(try client.decode(FoundTagAnswer.self, found) == FoundTagAnswer(registered: true), "\(text)")
            }
            #expect(try client.decode(FoundTagAnswer.self, try await post("/v1/found/lookup", FoundTagLookup(tag: "\(Fixture.beaconB)/1/2")))
                == FoundTagAnswer(registered: false))
            #expect(try await client.send(.get, "/found").status == .ok)

            // Bad input: 400 naming the field, before anything is sent.
            func refused(_ response: TestResponse, _ field: String) throws {
                expectError(response, .badRequest)
                let body = try client.decode(ErrorBody.self, response)
                #expect(body.message.contains("'\(field)'"), "\(body.message)")
            }
            try refused(try await post("/v1/found/lookup", FoundTagLookup(tag: "not a tag")), "tag")
            try refused(try await post("/v1/found/lookup", FoundTagLookup(tag: String(repeating: "a", count: 2001))), "tag")
            try refused(try await post("/v1/found/message", FoundTagMessage(tag: "\(Fixture.beaconA)/1/70000", message: "here")), "tag")
            try refused(try await post("/v1/found/message", FoundTagMessage(tag: tag, message: "<script>alert(1)</script>")), "message")
            try refused(try await post("/v1/found/message", FoundTagMessage(tag: tag, message: String(repeating: "x", count: 501))), "message")
            try refused(try await post("/v1/found/message", FoundTagMessage(tag: tag, message: "at\u{0}the station")), "message")
            try refused(try await post("/v1/found/message", FoundTagMessage(tag: tag, message: "  ")), "message")
            try refused(try await post("/v1/found/message", FoundTagMessage(tag: tag, message: "here", contact: "me\nBcc: x")), "contact")
            try refused(try await post("/v1/found/report", HiddenTagReport(tag: tag, message: "<img src=x onerror=alert(1)>")), "message")
            expectError(try await post("/v1/found/message", FoundTagMessage(tag: "\(Fixture.beaconB)/1/2", message: "here")),
                        .notFound, "not_registered")
            #expect(try sink.received().isEmpty)

            // A message, escaped in the mail's HTML; the contact only because it was given.
            let words = "Found at Tom & Jerry's <3 rack 4"
            #expect(try await post("/v1/found/message", FoundTagMessage(tag: tag, message: words, contact: "tel 0612")).status == .accepted)
            let mail = try #require(try await MailScenarios.received(sink, count: 1).first)
            #expect(mail.rcpt_tos == ["ann@example.org"])
            #expect(mail.parsed.subject == "Someone found Ann's <b>Pendler</b> and wrote to you")
            let text = try #require(mail.parsed.text)
            #expect(text.contains("Their message: \(words)") && text.contains("Their contact: tel 0612"))
            let html = try #require(mail.parsed.html)
            #expect(html.contains("Found at Tom &amp; Jerry&#39;s &lt;3 rack 4") && !html.contains("<3") && !html.contains("<b>Pendler"))
            #expect(try await post("/v1/found/message", FoundTagMessage(tag: tag, message: "still here")).status == .accepted)
            let second = try #require(try await MailScenarios.received(sink, count: 2).last)
            #expect(second.parsed.text?.contains("Their contact: they left none") == true, "\(second.parsed.text ?? "")")
            #expect(try await PushScenarios.queuedNotifications(harness).map(\.event) == [.found, .found])

            // Per tag: three a day from anyone, so a fourth from a new address waits; another tag is not held up.
            #expect(try await post("/v1/found/message", FoundTagMessage(tag: tag, message: "third")).status == .accepted)
            let flood = try await post("/v1/found/message", FoundTagMessage(tag: tag, message: "fourth"))
            expectError(flood, .tooManyRequests, "rate_limited")
            #expect(Int(flood.headers[.retryAfter] ?? "") ?? 0 > 0)
            let other = try await client.bike(ann, name: "Other", beacon: Fixture.beaconC)
            #expect(try await post("/v1/found/message", FoundTagMessage(tag: "\(Fixture.beaconC)/1/25626", message: "here")).status == .accepted)
            clock.advance(86_400_000 / 3 + 1_000)
            #expect(try await post("/v1/found/message", FoundTagMessage(tag: tag, message: "next day")).status == .accepted)
            #expect(try await PushScenarios.queuedNotifications(harness).filter { $0.bikeId == bike.id }.count == 4)
            #expect(try await PushScenarios.queuedNotifications(harness).filter { $0.bikeId == other.id }.count == 1)

            // Per client: six requests an hour, look-ups, bad requests and messages alike; another client is not held up.
            for _ in 0..<6 {
                #expect(try await post("/v1/found/lookup", FoundTagLookup(tag: tag), from: "203.0.113.9").status == .ok)
            }
            let limited = try await post("/v1/found/lookup", FoundTagLookup(tag: tag), from: "203.0.113.9")
            expectError(limited, .tooManyRequests, "rate_limited")
            expectError(try await post("/v1/found/message", FoundTagMessage(tag: "\(Fixture.beaconC)/1/25626", message: "x"), from: "203.0.113.9"),
                        .tooManyRequests, "rate_limited")
            #expect(try await post("/v1/found/lookup", FoundTagLookup(tag: tag), from: "203.0.113.10").status == .ok)
        }
    }
}
