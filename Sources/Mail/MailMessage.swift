/// An email address with an optional display name (any Unicode; encoded on the wire per RFC 2047).
public struct MailAddress: Sendable, Equatable {
    public var name: String?
    public var address: String

    public init(_ address: String, name: String? = nil) {
        self.address = address
        self.name = name
    }

    /// `user@example.org` or `Name <user@example.org>`; nil when there is no single plausible address.
    public init?(parsing text: String) {
        let trimmed = text.trimmingWhitespace
        if let open = trimmed.lastIndex(of: "<"), trimmed.hasSuffix(">") {
            let address = String(trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)])
            var name = String(trimmed[..<open]).trimmingWhitespace
            if name.hasPrefix("\""), name.hasSuffix("\""), name.count >= 2 { name = String(name.dropFirst().dropLast()) }
            self.init(address, name: name.isEmpty ? nil : name)
        } else {
            self.init(trimmed)
        }
        guard MailAddress.isPlausible(address) else { return nil }
    }

    /// One `@`, something on each side, no spaces, brackets or line breaks: enough to refuse what would corrupt the envelope.
    public static func isPlausible(_ address: String) -> Bool {
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        return parts.count == 2 && !parts[0].isEmpty && !parts[1].isEmpty && address.utf8.count <= 254
            && !address.contains(where: { $0.isWhitespace || $0 == "<" || $0 == ">" || $0 == "," || $0.asciiValue.map { $0 < 32 } ?? false })
    }

    /// The part after `@`, used for Message-IDs.
    public var domain: String { address.split(separator: "@").last.map(String.init) ?? "localhost" }
}

/// A message to send: one sender, recipients, a subject, a plain-text body and optionally an
/// HTML alternative. `date` (epoch milliseconds) and `messageID` are inputs so rendering is pure.
public struct MailMessage: Sendable, Equatable {
    public var from: MailAddress
    public var to: [MailAddress]
    public var subject: String
    public var text: String
    public var html: String?
    public var dateMilliseconds: Int64
    /// Without angle brackets, e.g. `3f2a…@bikes.example.org`.
    public var messageID: String

    public init(from: MailAddress, to: [MailAddress], subject: String, text: String, html: String? = nil,
                dateMilliseconds: Int64, messageID: String) {
        self.from = from
        self.to = to
        self.subject = subject
        self.text = text
        self.html = html
        self.dateMilliseconds = dateMilliseconds
        self.messageID = messageID
    }
}

extension String {
    var trimmingWhitespace: String {
        var scalars = Substring(self)
        while scalars.first?.isWhitespace == true { scalars = scalars.dropFirst() }
        while scalars.last?.isWhitespace == true { scalars = scalars.dropLast() }
        return String(scalars)
    }
}
