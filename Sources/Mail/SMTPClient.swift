import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL

/// A small SMTP client (RFC 5321) on SwiftNIO and NIOSSL.
///
/// Written here because no SMTP package is among the Swift packages this project can use. It
/// speaks what a notification sender needs: EHLO (HELO as fallback), STARTTLS whenever the server
/// offers it (`smtp://`) or TLS from the first byte (`smtps://`), AUTH PLAIN or LOGIN (only
/// over TLS), MAIL / RCPT / DATA with dot-stuffing, and a timeout on every reply. One connection
/// per message: notifications are rare, and a fresh connection cannot inherit a broken state.
public struct SMTPClient: Sendable {
    public var url: SMTPURL
    /// The name we give in EHLO; servers log it, some check it resolves.
    public var heloName: String
    /// For connecting, and for each reply after that.
    public var timeout: TimeAmount
    /// For the whole conversation: a caller that leases the message for a while (a queue) must be done within it.
    public var totalTimeout: TimeAmount
    /// Certificate checks for STARTTLS and smtps; tests add their own trust root here.
    public var tls: TLSConfiguration

    public init(url: SMTPURL, heloName: String = "localhost", timeout: TimeAmount = .seconds(30),
                totalTimeout: TimeAmount = .minutes(2), tls: TLSConfiguration = .makeClientConfiguration()) {
        self.url = url
        self.heloName = heloName
        self.timeout = timeout
        self.totalTimeout = totalTimeout
        self.tls = tls
    }

    /// Renders and sends one message to all its recipients; returns the server's final reply to DATA.
    @discardableResult
    public func send(_ message: MailMessage) async throws -> SMTPReply {
        try await send(MIME.render(message), from: message.from.address, to: message.to.map(\.address))
    }

    /// Sends an already rendered message (CRLF lines) in one SMTP transaction.
    @discardableResult
    public func send(_ rendered: String, from sender: String, to recipients: [String]) async throws -> SMTPReply {
        guard MailAddress.isPlausible(sender) else { throw SMTPError.invalidMessage("sender '\(sender)' is not an address") }
        guard !recipients.isEmpty, recipients.allSatisfy(MailAddress.isPlausible) else {
            throw SMTPError.invalidMessage("recipients \(recipients) are not all addresses")
        }
        let context = try NIOSSLContext(configuration: tls)
        let url = url
        let sni = Self.isIPAddress(url.host) ? nil : url.host
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(timeout)
            .connect(host: url.host, port: url.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if url.security == .implicitTLS {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: sni))
                    }
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(SMTPReplyDecoder()))
                    return try NIOAsyncChannel<SMTPReply, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        let timeout = timeout
        let heloName = heloName
        let raw = channel.channel
        let overall = raw.eventLoop.scheduleTask(in: totalTimeout) { raw.close(promise: nil) }
        defer { overall.cancel() }
        return try await channel.executeThenClose { inbound, outbound in
            var session = Session(channel: channel.channel, replies: inbound.makeAsyncIterator(), outbound: outbound, timeout: timeout)
            try await session.expect(220, after: "the greeting")
            var extensions = try await session.hello(heloName)
            if url.security == .startTLSWhenOffered, extensions.has("STARTTLS") {
                try await session.command("STARTTLS", expect: 220)
                try await raw.eventLoop.submit {
                    try raw.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: sni), position: .first)
                }.get()
                session.encrypted = true
                extensions = try await session.hello(heloName)
            }
            session.encrypted = session.encrypted || url.security == .implicitTLS
            if let username = url.username, let password = url.password {
                try await session.authenticate(username: username, password: password, extensions: extensions)
            }
            try await session.command("MAIL FROM:<\(sender)>", expect: 250)
            for recipient in recipients {
                try await session.command("RCPT TO:<\(recipient)>", expect: 250, 251)
            }
            try await session.command("DATA", expect: 354)
            try await session.write(SMTPData.stuffed(rendered))
            let accepted = try await session.expect(250, after: "the end of DATA")
            // The message is accepted; a failed QUIT changes nothing.
            _ = try? await session.command("QUIT", expect: 221)
            return accepted
        }
    }

    static func isIPAddress(_ host: String) -> Bool {
        host.contains(":") || host.split(separator: ".").count == 4 && host.allSatisfy { $0 == "." || $0.isNumber }
    }
}

/// The capabilities an EHLO reply lists, keyword upper-cased, parameters kept.
struct SMTPExtensions: Sendable {
    var keywords: [String: [String]] = [:]

    init(_ reply: SMTPReply?) {
        for line in reply?.lines.dropFirst() ?? [] {
            let words = line.split(separator: " ").map(String.init)
            if let keyword = words.first { keywords[keyword.uppercased()] = Array(words.dropFirst()) }
        }
    }

    func has(_ keyword: String) -> Bool { keywords[keyword] != nil }

    var authMechanisms: [String] { (keywords["AUTH"] ?? []).map { $0.uppercased() } }
}

/// One conversation: a command, then its reply within the timeout.
private struct Session {
    let channel: any Channel
    var replies: NIOAsyncChannelInboundStream<SMTPReply>.AsyncIterator
    let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    let timeout: TimeAmount
    var encrypted = false

    mutating func hello(_ name: String) async throws -> SMTPExtensions {
        try await write("EHLO \(name)\r\n")
        let reply = try await next(after: "EHLO")
        if reply.code == 250 { return SMTPExtensions(reply) }
        // A server without ESMTP: plain HELO, no extensions.
        try await command("HELO \(name)", expect: 250)
        return SMTPExtensions(nil)
    }

    mutating func authenticate(username: String, password: String, extensions: SMTPExtensions) async throws {
        guard encrypted else { throw SMTPError.tlsRequiredForAuthentication }
        let mechanisms = extensions.authMechanisms
        if mechanisms.contains("PLAIN") {
            let token = [UInt8](("\0" + username + "\0" + password).utf8)
            try await command("AUTH PLAIN " + base64(token), expect: 235, redacted: "AUTH PLAIN")
        } else if mechanisms.contains("LOGIN") {
            try await command("AUTH LOGIN", expect: 334)
            try await command(base64(Array(username.utf8)), expect: 334, redacted: "AUTH LOGIN user name")
            try await command(base64(Array(password.utf8)), expect: 235, redacted: "AUTH LOGIN password")
        } else {
            throw SMTPError.noCommonAuthenticationMechanism(offered: mechanisms)
        }
    }

    @discardableResult
    mutating func command(_ line: String, expect codes: Int..., redacted: String? = nil) async throws -> SMTPReply {
        try await write(line + "\r\n")
        let name = redacted ?? String(line.prefix(while: { $0 != " " && $0 != ":" }))
        let reply = try await next(after: name)
        guard codes.contains(reply.code) else { throw SMTPError.rejected(command: name, reply: reply) }
        return reply
    }

    @discardableResult
    mutating func expect(_ code: Int, after what: String) async throws -> SMTPReply {
        let reply = try await next(after: what)
        guard reply.code == code else { throw SMTPError.rejected(command: what, reply: reply) }
        return reply
    }

    func write(_ text: String) async throws {
        try await outbound.write(ByteBuffer(string: text))
    }

    /// The next reply; the connection is closed if none comes within the timeout.
    mutating func next(after what: String) async throws -> SMTPReply {
        let timedOut = NIOLockedValueBox(false)
        let channel = channel
        let alarm = channel.eventLoop.scheduleTask(in: timeout) {
            timedOut.withLockedValue { $0 = true }
            channel.close(promise: nil)
        }
        defer { alarm.cancel() }
        do {
            guard let reply = try await replies.next() else {
                throw timedOut.withLockedValue { $0 } ? SMTPError.timeout(waitingFor: what) : SMTPError.connectionClosed(waitingFor: what)
            }
            return reply
        } catch let error as SMTPError {
            throw error
        } catch {
            if timedOut.withLockedValue({ $0 }) { throw SMTPError.timeout(waitingFor: what) }
            throw error
        }
    }

    private func base64(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
    }
}

/// Feeds the pure reply parser from the channel.
struct SMTPReplyDecoder: ByteToMessageDecoder {
    typealias InboundOut = SMTPReply
    private var parser = SMTPReplyParser()

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        parser.append(buffer.readableBytesView)
        buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
        while let reply = try parser.next() {
            context.fireChannelRead(wrapInboundOut(reply))
        }
        return .needMoreData
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        try decode(context: context, buffer: &buffer)
    }
}
