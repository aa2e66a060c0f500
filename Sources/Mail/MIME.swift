import Foundation

/// Renders a `MailMessage` as RFC 5322 text with MIME (RFC 2045–2047): multipart/alternative
/// when there is HTML, UTF-8 bodies in quoted-printable, non-ASCII names and subjects as
/// encoded-words, every line within 78 characters and ending in CRLF. Pure: same input, same bytes.
public enum MIME {
    /// The message as it goes after DATA (before dot-stuffing, which is the transport's job).
    public static func render(_ message: MailMessage) throws(SMTPError) -> String {
        guard MailAddress.isPlausible(message.from.address) else { throw .invalidMessage("sender '\(message.from.address)' is not an address") }
        guard !message.to.isEmpty else { throw .invalidMessage("no recipients") }
        for recipient in message.to where !MailAddress.isPlausible(recipient.address) {
            throw .invalidMessage("recipient '\(recipient.address)' is not an address")
        }
        var lines: [String] = []
        lines.append(contentsOf: header("From", address(message.from)))
        lines.append(contentsOf: header("To", message.to.map(address).joined(separator: ", ")))
        lines.append(contentsOf: header("Subject", unstructured(message.subject)))
        lines.append("Date: " + RFC5322Date.format(milliseconds: message.dateMilliseconds))
        lines.append("Message-ID: <\(message.messageID)>")
        lines.append("MIME-Version: 1.0")
        // RFC 3834: tells auto-responders not to answer notifications.
        lines.append("Auto-Submitted: auto-generated")
        let textPart = ["Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: quoted-printable", ""]
            + quotedPrintable(message.text)
        if let html = message.html {
            // "=_" cannot occur in quoted-printable output (a literal "=" is "=3D"), so the boundary never collides with a body.
            let boundary = "=_bikebeacon_" + String(message.messageID.utf8.reduce(UInt64(14_695_981_039_346_656_037)) {
                ($0 ^ UInt64($1)) &* 1_099_511_628_211
            }, radix: 16)
            lines.append("Content-Type: multipart/alternative; boundary=\"\(boundary)\"")
            lines.append("")
            lines.append("--" + boundary)
            lines.append(contentsOf: textPart)
            lines.append("--" + boundary)
            lines.append(contentsOf: ["Content-Type: text/html; charset=utf-8", "Content-Transfer-Encoding: quoted-printable", ""])
            lines.append(contentsOf: quotedPrintable(html))
            lines.append("--" + boundary + "--")
        } else {
            lines.append(contentsOf: textPart)
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// `Name <address>`, the name quoted or encoded as needed.
    static func address(_ address: MailAddress) -> String {
        guard let name = address.name.map(singleLine), !name.isEmpty else { return address.address }
        let atext = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+-/=?^_`{|}~ ")
        let phrase: String
        if name.allSatisfy({ atext.contains($0) }) {
            phrase = name
        } else if name.allSatisfy({ $0.isASCII }) {
            phrase = "\"" + name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        } else {
            phrase = encodedWords(name).joined(separator: " ")
        }
        return "\(phrase) <\(address.address)>"
    }

    /// Free text for Subject: ASCII as is, anything else as encoded-words.
    static func unstructured(_ text: String) -> String {
        let line = singleLine(text)
        return line.allSatisfy({ $0.isASCII }) && !line.contains("=?") ? line : encodedWords(line).joined(separator: " ")
    }

    /// Line breaks in a header value would start a new header (injection); they become spaces.
    static func singleLine(_ text: String) -> String {
        String(text.map { $0.isNewline || $0 == "\t" ? " " : $0 }).trimmingWhitespace
    }

    /// `Name: value`, folded at spaces so no line exceeds 78 characters where that is possible.
    static func header(_ name: String, _ value: String) -> [String] {
        var lines: [String] = []
        var current = name + ":"
        for word in value.split(separator: " ", omittingEmptySubsequences: true) {
            if current.count + 1 + word.count > 78, current.count > name.count + 1 {
                lines.append(current)
                current = " " + word
            } else {
                current += " " + word
            }
        }
        lines.append(current)
        return lines
    }

    /// RFC 2047 `=?UTF-8?B?…?=` words of at most 75 characters, never splitting a character.
    static func encodedWords(_ text: String) -> [String] {
        var words: [String] = []
        var chunk: [UInt8] = []
        for character in text {
            let bytes = Array(String(character).utf8)
            // 39 bytes are 52 base64 characters; with the 12 of `=?UTF-8?B??=` that is 64, so even
            // the first word after "Subject: " stays within 78 characters.
            if chunk.count + bytes.count > 39, !chunk.isEmpty {
                words.append("=?UTF-8?B?" + Data(chunk).base64EncodedString() + "?=")
                chunk = []
            }
            chunk.append(contentsOf: bytes)
        }
        if !chunk.isEmpty || words.isEmpty { words.append("=?UTF-8?B?" + Data(chunk).base64EncodedString() + "?=") }
        return words
    }

    /// RFC 2045 §6.7 quoted-printable of UTF-8 text: lines at most 76 characters, trailing
    /// whitespace and every non-printable byte encoded, line breaks kept as hard breaks.
    static func quotedPrintable(_ text: String) -> [String] {
        let normalised = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        var output: [String] = []
        for line in normalised.split(separator: "\n", omittingEmptySubsequences: false) {
            let bytes = Array(line.utf8)
            var current = ""
            for (index, byte) in bytes.enumerated() {
                let last = index == bytes.count - 1
                let literal = (byte >= 33 && byte <= 126 && byte != UInt8(ascii: "="))
                    || ((byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")) && !last)
                let token = literal ? String(UnicodeScalar(byte)) : "=" + hexByte(byte)
                // Leave room for the soft break "=" unless this is the line's last token.
                if current.count + token.count > (last ? 76 : 75) {
                    output.append(current + "=")
                    current = ""
                }
                current += token
            }
            output.append(current)
        }
        return output
    }

    static func hexByte(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}

/// RFC 5322 §3.3 dates, always in UTC: `Sun, 22 Nov 2026 20:00:00 +0000`.
enum RFC5322Date {
    static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
        return calendar
    }()

    static func format(milliseconds: Int64) -> String {
        let seconds = (Double(milliseconds) / 1000).rounded(.down)
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .weekday],
                                        from: Date(timeIntervalSince1970: seconds))
        let names = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ n: Int?) -> String { (n ?? 0) < 10 ? "0\(n ?? 0)" : "\(n ?? 0)" }
        return "\(names[((c.weekday ?? 1) - 1) % 7]), \(two(c.day)) \(months[((c.month ?? 1) - 1) % 12]) \(c.year ?? 1970) "
            + "\(two(c.hour)):\(two(c.minute)):\(two(c.second)) +0000"
    }
}
