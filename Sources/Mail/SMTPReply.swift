/// One SMTP server reply (RFC 5321 §4.2): a three-digit code and its text lines, however many
/// continuation lines (`250-…`) it took.
public struct SMTPReply: Sendable, Equatable {
    public var code: Int
    public var lines: [String]

    public init(code: Int, lines: [String]) {
        self.code = code
        self.lines = lines
    }

    /// 2xx and 3xx move the conversation on; 4xx is a temporary failure, 5xx a permanent one.
    public var isPositive: Bool { (200..<400).contains(code) }
    public var isTransient: Bool { (400..<500).contains(code) }

    public var text: String { lines.joined(separator: " / ") }
}

/// Turns the bytes an SMTP server sends into replies. Pure and incremental: bytes may arrive
/// split anywhere, and anything that is not a well-formed reply is an error, never a crash.
public struct SMTPReplyParser: Sendable {
    /// RFC 5321 §4.5.3.1.5 allows 512 octets per reply line; servers exceed it, so allow more, but bound it.
    public static let maximumLineLength = 4096
    /// Bounds the lines of one multi-line reply (an EHLO answer has a dozen).
    public static let maximumLines = 256

    private var buffer: [UInt8] = []
    private var pending: (code: Int, lines: [String])?

    public init() {}

    public mutating func append(_ bytes: some Sequence<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    /// The next complete reply, nil when more bytes are needed.
    public mutating func next() throws(SMTPError) -> SMTPReply? {
        while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
            var line = buffer[..<newline]
            buffer.removeSubrange(...newline)
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            guard line.count <= Self.maximumLineLength else { throw .malformedReply("a reply line longer than \(Self.maximumLineLength) bytes") }
            let (code, last, text) = try Self.split(Array(line))
            if let current = pending, current.code != code {
                throw .malformedReply("a continuation line with code \(code) inside a \(current.code) reply")
            }
            var lines = pending?.lines ?? []
            lines.append(text)
            guard lines.count <= Self.maximumLines else { throw .malformedReply("a reply of more than \(Self.maximumLines) lines") }
            if last {
                pending = nil
                return SMTPReply(code: code, lines: lines)
            }
            pending = (code, lines)
        }
        guard buffer.count <= Self.maximumLineLength else { throw .malformedReply("a reply line longer than \(Self.maximumLineLength) bytes") }
        return nil
    }

    /// `250-text` (more to come) or `250 text` / `250` (last line).
    private static func split(_ line: [UInt8]) throws(SMTPError) -> (code: Int, last: Bool, text: String) {
        guard line.count >= 3, line[0] >= UInt8(ascii: "2"), line[0] <= UInt8(ascii: "5"),
              line[1...2].allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { throw .malformedReply("expected a three-digit code, got \(String(decoding: line.prefix(40), as: UTF8.self).debugDescription)") }
        let code = line[0...2].reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        if line.count == 3 { return (code, true, "") }
        let separator = line[3]
        guard separator == UInt8(ascii: " ") || separator == UInt8(ascii: "-") else {
            throw .malformedReply("expected ' ' or '-' after the code \(code)")
        }
        return (code, separator == UInt8(ascii: " "), String(decoding: line[4...], as: UTF8.self))
    }
}
