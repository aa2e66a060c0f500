import BikebeaconAPI
import Durable
import Foundation
import Mail
import NIOSSL
import SQLKit
import Subprocesses
import Testing
import TestSupport
@testable import Server

/// Email against a real SMTP server (aiosmtpd with STARTTLS on a self-signed certificate and
/// AUTH, `scripts/smtp-sink`): notifications, outages, password reset, verification.
enum MailScenarios {
    typealias Clock = PushScenarios.Clock

    static func options(_ sink: SMTPSink, clock: Clock, auth: Bool = true,
                        _ change: (inout ServerOptions) -> Void = { _ in }) throws -> ServerOptions {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(sink.certificatePath))
        return Harness.testOptions {
            $0.now = clock.read
            $0.mail = MailOptions(
                smtp: SMTPURL(host: "localhost", port: sink.port, security: .startTLSWhenOffered,
                              username: auth ? "bikebeacon" : nil, password: auth ? "mail pw" : nil),
                from: MailAddress("alerts@bikes.example.org", name: "bikebeacon Ålerts"),
                publicURL: "https://bikes.example.org/", tls: tls, timeout: .seconds(20))
            change(&$0)
        }
    }

    /// Waits (advancing the test clock, so retries come due) until the sink holds `count` messages.
    /// Up to 45 s: in CI's parallel suite on two busy cores a first mail once took longer than 15.
    static func received(_ sink: SMTPSink, count: Int, clock: Clock? = nil, seconds: Double = 45) async throws -> [SMTPSink.Received] {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            let messages = try sink.received()
            if messages.count >= count { return messages }
            clock?.advance(1_000)
            try await Task.sleep(for: .milliseconds(50))
        }
        return try sink.received()
    }

    static func sightingEmails(_ backend: Backend) async throws {
        let sink = try await SMTPSink.start(security: .starttls, auth: ("bikebeacon", "mail pw"))
        defer { sink.stop() }
        let clock = Clock(start: Fixture.afterSightings)
        let harness = try await Harness.make(backend, options: try options(sink, clock: clock))
        let (_, sentinel) = try await harness.sentinel("Café Rosa", latitude: 52.09, longitude: 5.12)
        try await harness.run { client in
            let owner = try await client.owner("ana@example.org")
            let bike = try await client.bike(owner, name: "Ana's Pendler 🚲")
            _ = try await client.send(.post, "/v1/bikes/\(bike.id)/missing", token: owner)
            let arrived = Fixture.Batch(sightings: [Fixture.sighting(event: "arrived"), Fixture.sighting(event: "present")])
            #expect(try await client.send(.post, "/v1/sightings", token: sentinel, json: arrived).status == .ok)

            let first = try #require(try await received(sink, count: 1).first)
            #expect(first.tls && first.authenticated)
            #expect(first.mail_from == "alerts@bikes.example.org" && first.rcpt_tos == ["ana@example.org"])
            let mail = first.parsed
            #expect(mail.defects.isEmpty, "\(mail.defects)")
            #expect(mail.subject == "Ana's Pendler 🚲 was seen at Café Rosa")
            #expect(mail.from == "bikebeacon Ålerts <alerts@bikes.example.org>")
            #expect(mail.to == "ana@example.org")
            #expect(mail.content_type == "multipart/alternative")
            #expect(mail.message_id.hasSuffix("@bikes.example.org>"))
            let text = try #require(mail.text)
            #expect(text.contains("Where: Café Rosa"))
            #expect(text.contains("How close: near"))
            #expect(text.contains("https://bikes.example.org/#bike=\(bike.id)"))
            #expect(text.contains("mlat=52.09&mlon=5.12"))
            let html = try #require(mail.html)
            #expect(html.contains("<td>Café Rosa</td>") && html.contains("Ana&#39;s Pendler 🚲"))

            // The departure after the no-spam window, then the recovery: one mail each, nothing for `present`.
            clock.advance(31 * 60_000)
            let departed = Fixture.Batch(sightings: [Fixture.sighting(event: "departed", time: "2026-11-21T10:40:00Z")])
            #expect(try await client.send(.post, "/v1/sightings", token: sentinel, json: departed).status == .ok)
            #expect(try await received(sink, count: 2).last?.parsed.subject == "Ana's Pendler 🚲 left Café Rosa")
            _ = try await client.send(.post, "/v1/bikes/\(bike.id)/recovered", token: owner)
            #expect(try await received(sink, count: 3).last?.parsed.subject == "Ana's Pendler 🚲 was marked recovered")

            // A date whose reminder is due: mailed at once, saying what falls due and when.
            let due = String(Timestamp.format(milliseconds: clock.read() + 2 * 86_400_000).prefix(10))
            #expect(try await client.send(.post, "/v1/bikes/\(bike.id)/dates", token: owner,
                                          json: BikeDateRequest(name: "Insurance renewal", due: due)).status == .created)
            let reminder = try #require(try await received(sink, count: 4).last?.parsed)
            #expect(reminder.subject == "Ana's Pendler 🚲: Insurance renewal is due on \(due)")
            let reminderText = try #require(reminder.text)
            #expect(reminderText.contains("Due: \(due)") && reminderText.contains("What: Insurance renewal")
                    && reminderText.contains("asked to be reminded") && !reminderText.contains("marked missing"), "\(reminderText)")
            try await Task.sleep(for: .milliseconds(500))
            #expect(try sink.received().count == 4, "each event mails once")
        }
    }

    /// SMTP down when the sighting arrives: queued, retried, delivered once when it is back. The sink comes back on the
    /// same port, so the port is below the ephemeral range: one the kernel picked was once given to another test's
    /// listener during the outage, and the sink could not come back.
    static func smtpOutage(_ backend: Backend) async throws {
        let first = try await SMTPSink.start(security: .starttls, port: try LoopbackPort.free())
        let port = first.port
        await first.shutDown()
        let clock = Clock(start: Fixture.afterSightings)
        let harness = try await Harness.make(backend, options: try options(first, clock: clock, auth: false) {
            $0.webhookBackoff = Backoff(initial: 0.5, maximum: 2, maxAttempts: 1_000, jitter: 0)
        })
        let (_, sentinel) = try await harness.sentinel("garage")
        try await harness.run { client in
            let owner = try await client.owner("ben@example.org")
            let bike = try await client.bike(owner)
            _ = try await client.send(.post, "/v1/bikes/\(bike.id)/missing", token: owner)
            #expect(try await client.send(.post, "/v1/sightings", token: sentinel,
                                          json: Fixture.Batch(sightings: [Fixture.sighting(event: "arrived")])).status == .ok)
            // Up to 45 s: the parallel suite on two busy cores once took longer than 15 (it returns at the second attempt).
            let failed = try await eventually(within: 45) {
                clock.advance(500)
                let attempts = try? await harness.database.withSession { db in
                    try await db.raw("SELECT MAX(attempts) AS n FROM notification_deliveries WHERE channel = 'email'")
                        .first()?.decode(column: "n", as: Int?.self)
                }
                return (attempts ?? nil ?? 0) >= 2
            }
            #expect(failed, "the email was not attempted while SMTP was down")
            #expect(try first.received().isEmpty)

            let back = try await SMTPSink.start(security: .starttls, port: port, directory: first.directory)
            defer { back.stop() }
            #expect(try await received(back, count: 1, clock: clock).count == 1)
            for _ in 0..<10 {
                clock.advance(5_000)
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(try back.received().count == 1, "delivered exactly once")
        }
    }

    static func linkToken(_ mail: SMTPSink.Received, _ fragment: String) throws -> String {
        let text = try #require(mail.parsed.text)
        let link = try #require(text.split(whereSeparator: \.isWhitespace).first { $0.contains("#\(fragment)=") })
        #expect(link.hasPrefix("https://bikes.example.org/#\(fragment)="))
        return String(try #require(link.split(separator: "=").last))
    }

    static func passwordReset(_ backend: Backend) async throws {
        let sink = try await SMTPSink.start(security: .starttls, auth: ("bikebeacon", "mail pw"))
        defer { sink.stop() }
        let clock = Clock()
        let harness = try await Harness.make(backend, options: try options(sink, clock: clock))
        try await harness.run { client in
            // Unknown address: the same answer, and no mail.
            #expect(try await client.send(.post, "/v1/password-reset", json: ["email": "nobody@example.org"]).status == .accepted)
            #expect(try await client.send(.post, "/v1/password-reset", json: ["email": "not an address"]).status == .accepted)
            let session = try await client.owner("cleo@example.org", password: "old password 1")
            #expect(try await client.send(.post, "/v1/password-reset", json: ["email": "Cleo@Example.org"]).status == .accepted)
            let mail = try #require(try await received(sink, count: 1).first)
            #expect(try sink.received().count == 1, "the unknown address got no mail")
            #expect(mail.rcpt_tos == ["cleo@example.org"] && mail.parsed.subject == "Reset your bikebeacon password")
            #expect(mail.parsed.html?.contains("#password-reset=") == true)
            let token = try linkToken(mail, "password-reset")
            let stored = try await harness.database.withSession { db in
                try await db.raw("SELECT token_hash FROM account_tokens").all().map { try $0.decode(column: "token_hash", as: String.self) }
            }
            #expect(stored == [Tokens.digest(token)], "only the token's digest is stored")

            expectError(try await client.send(.post, "/v1/password-reset/confirm", json: ["token": token, "password": "short"]),
                        .badRequest, "invalid_request")
            #expect(try await client.send(.post, "/v1/password-reset/confirm",
                                          json: ["token": token, "password": "new password 2"]).status == .noContent)
            expectError(try await client.send(.get, "/v1/account", token: session), .unauthorized)
            #expect(try await client.send(.post, "/v1/sessions", json: ["email": "cleo@example.org", "password": "new password 2"]).status == .ok)
            expectError(try await client.send(.post, "/v1/sessions", json: ["email": "cleo@example.org", "password": "old password 1"]),
                        .unauthorized)
            // Used once: refused after.
            expectError(try await client.send(.post, "/v1/password-reset/confirm", json: ["token": token, "password": "third password 3"]),
                        .badRequest, "invalid_token")

            // A second request within a minute mails nothing; after it, a new link that expires in 30 minutes.
            #expect(try await client.send(.post, "/v1/password-reset", json: ["email": "cleo@example.org"]).status == .accepted)
            try await Task.sleep(for: .milliseconds(300))
            #expect(try sink.received().count == 1)
            clock.advance(61_000)
            #expect(try await client.send(.post, "/v1/password-reset", json: ["email": "cleo@example.org"]).status == .accepted)
            let second = try linkToken(try #require(try await received(sink, count: 2).last), "password-reset")
            clock.advance(30 * 60_000 + 1)
            expectError(try await client.send(.post, "/v1/password-reset/confirm", json: ["token": second, "password": "late password 4"]),
                        .badRequest, "invalid_token")
            #expect(try await client.send(.post, "/v1/sessions", json: ["email": "cleo@example.org", "password": "new password 2"]).status == .ok)
        }
    }

    static func emailVerification(_ backend: Backend) async throws {
        let sink = try await SMTPSink.start(security: .starttls, auth: ("bikebeacon", "mail pw"))
        defer { sink.stop() }
        let clock = Clock()
        let harness = try await Harness.make(backend, options: try options(sink, clock: clock) { $0.requireVerifiedEmail = true })
        try await harness.run { client in
            let credentials = ["email": "dan@example.org", "password": "dans password"]
            #expect(try await client.send(.post, "/v1/accounts", json: credentials).status == .created)
            let mail = try #require(try await received(sink, count: 1).first)
            #expect(mail.parsed.subject == "Confirm your email for bikebeacon")
            expectError(try await client.send(.post, "/v1/sessions", json: credentials), .forbidden, "email_unverified")
            let token = try linkToken(mail, "verify-email")
            #expect(try await client.send(.post, "/v1/email-verification/confirm", json: ["token": token]).status == .noContent)
            #expect(try await client.send(.post, "/v1/sessions", json: credentials).status == .ok)
            expectError(try await client.send(.post, "/v1/email-verification/confirm", json: ["token": token]), .badRequest, "invalid_token")
            // Verified: asking again mails nothing.
            #expect(try await client.send(.post, "/v1/email-verification", json: ["email": "dan@example.org"]).status == .accepted)
            try await Task.sleep(for: .milliseconds(300))
            #expect(try sink.received().count == 1)
        }
    }
}
