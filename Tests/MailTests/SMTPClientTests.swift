import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import Testing
import TestSupport
@testable import Mail

/// The client against a real SMTP server (aiosmtpd, started by each test), whose own MIME
/// parser (Python's `email`) reads back what we sent.
@Suite struct SMTPClientTests {
    static func client(_ sink: SMTPSink, scheme: String = "smtp", credentials: String = "") throws -> SMTPClient {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(sink.certificatePath))
        return SMTPClient(url: try SMTPURL(parsing: "\(scheme)://\(credentials)localhost:\(sink.port)"), timeout: .seconds(30), tls: tls)
    }

    @Test func startTLSAuthPlainMultipart() async throws {
        let sink = try await SMTPSink.start(security: .starttls, auth: ("alerts", "s3cret pass"))
        defer { sink.stop() }
        let reply = try await Self.client(sink, credentials: "alerts:s3cret%20pass@").send(MIMETests.message)
        #expect(reply.code == 250)
        let received = try #require(try sink.received().first)
        #expect(received.tls && received.authenticated)
        #expect(received.mail_from == "alerts@bikes.example.org")
        #expect(received.rcpt_tos == ["ana@example.org"])
        let parsed = received.parsed
        #expect(parsed.defects.isEmpty, "\(parsed.defects)")
        #expect(parsed.content_type == "multipart/alternative")
        #expect(parsed.subject == MIMETests.message.subject)
        #expect(parsed.to.contains("Ana Müller-Lüdenscheidt"))
        #expect(parsed.to.contains("<ana@example.org>"))
        #expect(parsed.from == "bikebeacon <alerts@bikes.example.org>")
        #expect(parsed.message_id == "<abc123@bikes.example.org>")
        #expect(parsed.date == "Sun, 22 Nov 2026 20:00:00 +0000")
        // In a multipart body the line break before a boundary belongs to the boundary.
        #expect(parsed.text?.replacingOccurrences(of: "\r\n", with: "\n") == MIMETests.message.text)
        #expect(parsed.html?.replacingOccurrences(of: "\r\n", with: "\n") == MIMETests.message.html)
        // The dot-stuffed line arrives as the author wrote it.
        #expect(parsed.text?.replacingOccurrences(of: "\r\n", with: "\n").contains("\n.a line starting with a dot\n") == true)
    }

    @Test func authLoginWhenPlainIsNotOffered() async throws {
        let sink = try await SMTPSink.start(security: .starttls, auth: ("alerts", "pw"), loginOnly: true)
        defer { sink.stop() }
        try await Self.client(sink, credentials: "alerts:pw@").send(MIMETests.message)
        #expect(try sink.received().first?.authenticated == true)
    }

    @Test func implicitTLS() async throws {
        let sink = try await SMTPSink.start(security: .implicit)
        defer { sink.stop() }
        var message = MIMETests.message
        message.html = nil
        try await Self.client(sink, scheme: "smtps").send(message)
        let received = try #require(try sink.received().first)
        #expect(received.tls)
        #expect(received.parsed.content_type == "text/plain")
    }

    @Test func wrongPasswordIsAClearPermanentError() async throws {
        let sink = try await SMTPSink.start(security: .starttls, auth: ("alerts", "right"))
        defer { sink.stop() }
        await #expect {
            try await Self.client(sink, credentials: "alerts:wrong@").send(MIMETests.message)
        } throws: { error in
            guard let error = error as? SMTPError, case let .rejected(command, reply) = error else { return false }
            return command == "AUTH PLAIN" && reply.code == 535 && !error.isTransient && !error.description.contains("wrong")
        }
        #expect(try sink.received().isEmpty)
    }

    @Test func passwordNeverTravelsInClear() async throws {
        let sink = try await SMTPSink.start(security: .none)
        defer { sink.stop() }
        await #expect(throws: SMTPError.tlsRequiredForAuthentication) {
            try await SMTPClient(url: try SMTPURL(parsing: "smtp://u:p@127.0.0.1:\(sink.port)")).send(MIMETests.message)
        }
    }

    @Test func plainServerWithoutCredentials() async throws {
        let sink = try await SMTPSink.start(security: .none)
        defer { sink.stop() }
        try await SMTPClient(url: try SMTPURL(parsing: "smtp://127.0.0.1:\(sink.port)")).send(MIMETests.message)
        #expect(try sink.received().first?.tls == false)
    }

    @Test func serverDownIsTransient() async throws {
        let sink = try await SMTPSink.start(security: .none)
        let port = sink.port
        await sink.shutDown()
        await #expect {
            try await SMTPClient(url: try SMTPURL(parsing: "smtp://127.0.0.1:\(port)"), timeout: .seconds(5)).send(MIMETests.message)
        } throws: { _ in true }
    }

    /// A peer that accepts and never speaks (no SMTP server behaves so on purpose, hence a bare socket).
    @Test func silentServerTimesOut() async throws {
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(server.localAddress?.port)
        await #expect(throws: SMTPError.timeout(waitingFor: "the greeting")) {
            try await SMTPClient(url: try SMTPURL(parsing: "smtp://127.0.0.1:\(port)"), timeout: .milliseconds(300)).send(MIMETests.message)
        }
        try await server.close().get()
    }
}
