#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// An SMTP receiver on loopback that keeps every message it is given: the demo's server mails its
/// alerts here, so a newcomer sees the mail the operator got without a mail server. It speaks just
/// enough SMTP for bikebeacon-server's client (no TLS, no AUTH, one command at a time); not a mail server.
public final class MailCatcher: Sendable {
    public let port: Int
    private let channel: any Channel
    private let inbox: NIOLockedValueBox<[CaughtMail]>

    /// Every message received so far, oldest first.
    public var mails: [CaughtMail] { inbox.withLockedValue { $0 } }

    public init() async throws {
        let inbox = NIOLockedValueBox<[CaughtMail]>([])
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture { try child.pipeline.syncOperations.addHandler(Session(inbox: inbox)) }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        guard let port = channel.localAddress?.port else { throw LocalServerError("the mail catcher could not bind a port on 127.0.0.1") }
        self.port = port
        self.inbox = inbox
    }

    /// `serve --smtp-url` for this catcher.
    public var smtpURL: String { "smtp://127.0.0.1:\(port)" }

    public func stop() async { try? await channel.close().get() }

    /// One client's conversation: a reply per command line, the message between DATA and ".".
    private final class Session: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer

        let inbox: NIOLockedValueBox<[CaughtMail]>
        private var pending: [UInt8] = []
        private var recipients: [String] = []
        /// The message's lines while DATA is being read.
        private var message: [String]?

        init(inbox: NIOLockedValueBox<[CaughtMail]>) { self.inbox = inbox }

        func channelActive(context: ChannelHandlerContext) { reply("220 bikebeacon-demo ESMTP", context) }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var buffer = unwrapInboundIn(data)
            pending += buffer.readBytes(length: buffer.readableBytes) ?? []
            while let end = pending.indices.dropLast().first(where: { pending[$0] == 13 && pending[$0 + 1] == 10 }) {
                let line = String(decoding: pending[..<end], as: UTF8.self)
                pending.removeFirst(end + 2)
                handle(line, context)
            }
        }

        private func handle(_ line: String, _ context: ChannelHandlerContext) {
            if var lines = message {
                guard line != "." else {
                    let mail = CaughtMail(recipients: recipients, message: lines.joined(separator: "\n"))
                    inbox.withLockedValue { $0.append(mail) }
                    (message, recipients) = (nil, [])
                    return reply("250 OK", context)
                }
                lines.append(line.hasPrefix(".") ? String(line.dropFirst()) : line)
                message = lines
                return
            }
            switch line.prefix(4).uppercased() {
            case "EHLO", "HELO": reply("250 bikebeacon-demo", context)
            case "MAIL", "RSET":
                recipients = []
                reply("250 OK", context)
            case "RCPT":
                if let open = line.firstIndex(of: "<"), let close = line.lastIndex(of: ">"), open < close {
                    recipients.append(String(line[line.index(after: open)..<close]))
                }
                reply("250 OK", context)
            case "DATA":
                message = []
                reply("354 end the message with a line of one dot", context)
            case "NOOP": reply("250 OK", context)
            case "QUIT":
                reply("221 bye", context)
                context.close(promise: nil)
            default: reply("502 not implemented", context)
            }
        }

        private func reply(_ text: String, _ context: ChannelHandlerContext) {
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: text + "\r\n")), promise: nil)
        }
    }
}

/// A message the catcher received: its envelope recipients, and its subject and plain text read
/// back from the MIME the server wrote (quoted-printable parts, encoded-word subjects).
public struct CaughtMail: Sendable, Equatable {
    public var recipients: [String]
    /// The message as sent, lines joined by "\n", dot-stuffing removed.
    public var message: String

    public init(recipients: [String], message: String) {
        self.recipients = recipients
        self.message = message
    }

    public var subject: String {
        let headers = message.split(separator: "\n", omittingEmptySubsequences: false).prefix { !$0.isEmpty }
        // Folded header lines go on with a space or tab.
        let unfolded = headers.reduce(into: [String]()) { lines, line in
            if line.first == " " || line.first == "\t", !lines.isEmpty { lines[lines.count - 1] += line } else { lines.append(String(line)) }
        }
        guard let line = unfolded.first(where: { $0.lowercased().hasPrefix("subject:") }) else { return "" }
        // The space between two encoded words is not part of the text (RFC 2047 §6.2).
        var subject = ""
        var lastEncoded = false
        for word in line.dropFirst("subject:".count).split(separator: " ").map(String.init) {
            let decoded = Self.decodedWord(word)
            let encoded = decoded != word
            if !subject.isEmpty, !(encoded && lastEncoded) { subject += " " }
            subject += decoded
            lastEncoded = encoded
        }
        return subject
    }

    /// The text/plain part, decoded; the whole body when the message has no such part.
    public var text: String {
        let lines = message.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let headers = lines.prefix { !$0.isEmpty }.joined(separator: " ")
        let boundary = headers.firstMatch(of: /boundary="?([^";\s]+)"?/).map { "--" + $0.1 }
        var body: ArraySlice<String>
        if let part = lines.firstIndex(where: { $0.lowercased().hasPrefix("content-type: text/plain") }),
           let blank = lines[part...].firstIndex(of: "") {
            body = lines[(blank + 1)...].prefix { line in boundary.map { !line.hasPrefix($0) } ?? true }
        } else {
            body = lines[((lines.firstIndex(of: "") ?? -1) + 1)...]
        }
        while body.last == "" { body = body.dropLast() }
        return Self.quotedPrintable(Array(body))
    }

    /// RFC 2045 quoted-printable: "=" at a line's end joins it to the next, "=XX" is a byte.
    static func quotedPrintable(_ lines: [String]) -> String {
        var bytes: [UInt8] = []
        for (index, line) in lines.enumerated() {
            var chars = Array(line.utf8)
            let soft = chars.last == UInt8(ascii: "=")
            if soft { chars.removeLast() }
            var i = 0
            while i < chars.count {
                if chars[i] == UInt8(ascii: "="), i + 2 < chars.count,
                   let byte = UInt8(String(decoding: chars[(i + 1)...(i + 2)], as: UTF8.self), radix: 16) {
                    bytes.append(byte)
                    i += 3
                } else {
                    bytes.append(chars[i])
                    i += 1
                }
            }
            if !soft, index < lines.count - 1 { bytes.append(10) }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `=?UTF-8?B?…?=` decoded; anything else as it is.
    static func decodedWord(_ word: String) -> String {
        guard word.hasPrefix("=?UTF-8?B?"), word.hasSuffix("?="),
              let data = Data(base64Encoded: String(word.dropFirst(10).dropLast(2))) else { return word }
        return String(decoding: data, as: UTF8.self)
    }
}
