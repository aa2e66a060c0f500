import Foundation
import Testing
@testable import Mail

@Suite struct MIMETests {
    static let message = MailMessage(
        from: MailAddress("alerts@bikes.example.org", name: "bikebeacon"),
        to: [MailAddress("ana@example.org", name: "Ana Müller-Lüdenscheidt, \"Fahrrad\" Ørsted")],
        subject: "Ihr Fahrrad „Pendler“ wurde bei Café Zürich gesehen – bitte prüfen Sie die Karte",
        text: "Hallo Ana,\n.a line starting with a dot\nünïcödé and a long line " + String(repeating: "é", count: 120) + "   \nend",
        html: "<p>Hallo <b>Ana</b> = schön</p>\n<p>" + String(repeating: "x", count: 200) + "</p>",
        dateMilliseconds: 1_795_377_600_123, messageID: "abc123@bikes.example.org")

    @Test func headersAreAsciiAndLinesShort() throws {
        let rendered = try MIME.render(Self.message)
        #expect(rendered.hasSuffix("\r\n"))
        let lines = rendered.components(separatedBy: "\r\n")
        for line in lines {
            #expect(line.utf8.count <= 78, "line too long: \(line)")
            #expect(line.utf8.allSatisfy { $0 < 128 }, "8-bit byte on the wire: \(line)")
            #expect(!line.contains("\n") && !line.contains("\r"))
        }
        #expect(lines.contains("Date: Sun, 22 Nov 2026 20:00:00 +0000"))
        #expect(lines.contains("Message-ID: <abc123@bikes.example.org>"))
        #expect(lines.contains("MIME-Version: 1.0"))
        #expect(rendered.contains("Content-Type: multipart/alternative; boundary="))
        #expect(rendered.contains("Content-Type: text/plain; charset=utf-8"))
        #expect(rendered.contains("Content-Type: text/html; charset=utf-8"))
    }

    @Test func quotedPrintableRoundTrips() {
        for text in ["plain", "trailing space ", "tab\tinside", "=3D literal", String(repeating: "ü", count: 100), "a\nb\r\nc", ""] {
            let encoded = MIME.quotedPrintable(text)
            for line in encoded { #expect(line.utf8.count <= 76) }
            let expected = text.replacingOccurrences(of: "\r\n", with: "\n")
            #expect(Self.decodeQuotedPrintable(encoded) == expected, "\(text)")
        }
    }

    @Test func encodedWordsKeepCharactersWhole() {
        let name = String(repeating: "Ærøskøbing 🚲 ", count: 8)
        let words = MIME.encodedWords(name)
        #expect(words.count > 1)
        var bytes = Data()
        for word in words {
            #expect(word.count <= 75)
            #expect(word.hasPrefix("=?UTF-8?B?") && word.hasSuffix("?="))
            let payload = Data(base64Encoded: String(word.dropFirst(10).dropLast(2)))
            #expect(payload.map { String(data: $0, encoding: .utf8) != nil } == true, "a word splits a character")
            bytes.append(payload ?? Data())
        }
        #expect(String(decoding: bytes, as: UTF8.self) == name)
    }

    @Test func addressesQuoteOrEncodeNames() {
        #expect(MIME.address(MailAddress("a@b.org", name: "Ana")) == "Ana <a@b.org>")
        #expect(MIME.address(MailAddress("a@b.org", name: "Doe, \"J\"")) == "\"Doe, \\\"J\\\"\" <a@b.org>")
        #expect(MIME.address(MailAddress("a@b.org")) == "a@b.org")
        #expect(MIME.address(MailAddress("a@b.org", name: "Zoë")).hasPrefix("=?UTF-8?B?"))
    }

    @Test func headerInjectionIsNeutralised() throws {
        var message = Self.message
        message.subject = "hello\r\nBcc: victim@example.org"
        let rendered = try MIME.render(message)
        #expect(!rendered.contains("\r\nBcc:"))
    }

    @Test func refusesWhatWouldCorruptTheEnvelope() {
        var message = Self.message
        message.to = [MailAddress("not an address")]
        #expect(throws: SMTPError.self) { try MIME.render(message) }
        message.to = []
        #expect(throws: SMTPError.self) { try MIME.render(message) }
    }

    @Test func datesAcrossEpochsAndLeapYears() {
        #expect(RFC5322Date.format(milliseconds: 0) == "Thu, 01 Jan 1970 00:00:00 +0000")
        #expect(RFC5322Date.format(milliseconds: 951_782_400_000) == "Tue, 29 Feb 2000 00:00:00 +0000")
        #expect(RFC5322Date.format(milliseconds: -1000) == "Wed, 31 Dec 1969 23:59:59 +0000")
    }

    @Test func dotStuffingAndTerminator() {
        #expect(SMTPData.stuffed("a\r\n.b\r\n..c\r\n") == "a\r\n..b\r\n...c\r\n.\r\n")
        #expect(SMTPData.stuffed("bare\nlf") == "bare\r\nlf\r\n.\r\n")
        #expect(SMTPData.stuffed(".") == "..\r\n.\r\n")
    }

    @Test func parsesAddressesWithNames() {
        #expect(MailAddress(parsing: "bikebeacon <alerts@x.org>") == MailAddress("alerts@x.org", name: "bikebeacon"))
        #expect(MailAddress(parsing: "\"B B\" <a@x.org>") == MailAddress("a@x.org", name: "B B"))
        #expect(MailAddress(parsing: "a@x.org") == MailAddress("a@x.org"))
        #expect(MailAddress(parsing: "nobody") == nil)
        #expect(MailAddress(parsing: "a@x.org, b@y.org") == nil)
    }

    static func decodeQuotedPrintable(_ lines: [String]) -> String {
        var bytes: [UInt8] = []
        for (index, line) in lines.enumerated() {
            var utf8 = Array(line.utf8)
            let soft = utf8.last == UInt8(ascii: "=")
            if soft { utf8.removeLast() }
            var i = 0
            while i < utf8.count {
                if utf8[i] == UInt8(ascii: "="), i + 2 < utf8.count + 0, let byte = UInt8(String(decoding: utf8[(i + 1)...(i + 2)], as: UTF8.self), radix: 16) {
                    bytes.append(byte)
                    i += 3
                } else {
                    bytes.append(utf8[i])
                    i += 1
                }
            }
            if !soft, index < lines.count - 1 { bytes.append(UInt8(ascii: "\n")) }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
