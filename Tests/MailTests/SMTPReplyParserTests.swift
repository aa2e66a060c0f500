import Testing
@testable import Mail

@Suite struct SMTPReplyParserTests {
    @Test func multiLineEhloReply() throws {
        var parser = SMTPReplyParser()
        parser.append(Array("250-mail.example.org\r\n250-SIZE 1000\r\n250-STARTTLS\r\n250 AUTH PLAIN LOGIN\r\n".utf8))
        let reply = try #require(try parser.next())
        #expect(reply.code == 250)
        #expect(reply.lines == ["mail.example.org", "SIZE 1000", "STARTTLS", "AUTH PLAIN LOGIN"])
        let extensions = SMTPExtensions(reply)
        #expect(extensions.has("STARTTLS"))
        #expect(extensions.authMechanisms == ["PLAIN", "LOGIN"])
        #expect(try parser.next() == nil)
    }

    @Test func bareCodeAndBareLineFeeds() throws {
        var parser = SMTPReplyParser()
        parser.append(Array("354\n221 bye\n".utf8))
        #expect(try parser.next() == SMTPReply(code: 354, lines: [""]))
        #expect(try parser.next() == SMTPReply(code: 221, lines: ["bye"]))
    }

    @Test func malformedRepliesAreErrors() {
        for bad in ["hello\r\n", "25\r\n", "250x\r\n", "250-a\r\n251 b\r\n", "650 no\r\n", "2a0 x\r\n"] {
            var parser = SMTPReplyParser()
            parser.append(Array(bad.utf8))
            #expect(throws: SMTPError.self, "\(bad.debugDescription)") { while try parser.next() != nil {} }
        }
        var endless = SMTPReplyParser()
        endless.append([UInt8](repeating: UInt8(ascii: "2"), count: SMTPReplyParser.maximumLineLength + 10))
        #expect(throws: SMTPError.self) { try endless.next() }
    }

    /// Random replies, serialised and cut at random points, parse back to the same replies.
    @Test func randomSplitsRoundTrip() throws {
        var random = SplitMix(seed: 0x5eed_b1ce)
        for _ in 0..<500 {
            var replies: [SMTPReply] = []
            var wire: [UInt8] = []
            for _ in 0..<Int.random(in: 1...5, using: &random) {
                let code = Int.random(in: 200...599, using: &random)
                let lines = (0..<Int.random(in: 1...4, using: &random)).map { _ in
                    String((0..<Int.random(in: 0...30, using: &random)).map { _ in Character(UnicodeScalar(UInt8.random(in: 32...126, using: &random))) })
                }
                replies.append(SMTPReply(code: code, lines: lines))
                for (i, line) in lines.enumerated() {
                    wire += Array("\(code)\(i == lines.count - 1 ? " " : "-")\(line)\(Bool.random(using: &random) ? "\r\n" : "\n")".utf8)
                }
            }
            var parser = SMTPReplyParser()
            var parsed: [SMTPReply] = []
            var rest = wire[...]
            while !rest.isEmpty {
                let cut = Int.random(in: 1...max(1, rest.count), using: &random)
                parser.append(rest.prefix(cut))
                rest = rest.dropFirst(cut)
                while let reply = try parser.next() { parsed.append(reply) }
            }
            #expect(parsed == replies)
        }
    }

    /// Random bytes never crash or hang the parser: each input ends in replies, an error, or a wait for more.
    @Test func randomBytesNeverCrash() {
        var random = SplitMix(seed: 42)
        let alphabet = Array("0123456789 -\r\n25ab".utf8) + [0, 0xff]
        for _ in 0..<5000 {
            var parser = SMTPReplyParser()
            let bytes = (0..<Int.random(in: 0...200, using: &random)).map { _ in
                Bool.random(using: &random) ? alphabet.randomElement(using: &random) ?? 0 : UInt8.random(in: 0...255, using: &random)
            }
            parser.append(bytes)
            var count = 0
            while let reply = try? parser.next() {
                #expect((200...599).contains(reply.code))
                count += 1
                #expect(count <= bytes.count)
            }
        }
    }

    @Test func urls() throws {
        let plain = try SMTPURL(parsing: "smtp://user%40x:p%3Ass@mail.example.org:2525")
        #expect(plain == SMTPURL(host: "mail.example.org", port: 2525, security: .startTLSWhenOffered, username: "user@x", password: "p:ss"))
        #expect(plain.description == "smtp://user@x@mail.example.org:2525")
        #expect(try SMTPURL(parsing: "smtps://mail.example.org").port == 465)
        #expect(try SMTPURL(parsing: "smtp://[::1]:25").host == "::1")
        for bad in ["http://x", "smtp://", "smtp://u@x", "smtp://x:0", "smtp://x/path", "mail.example.org"] {
            #expect(throws: SMTPError.self, "\(bad)") { try SMTPURL(parsing: bad) }
        }
    }
}

/// A seeded generator, so a failing random case can be replayed.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
