import Foundation
import StrictYAML
import Testing
import TestSupport
import Yams

/// The config reader against libyaml (through Yams, a test-only oracle) on what config files
/// hold, and against hostile input: refused with a line, never a crash or a hang.
struct YAMLReaderTests {
    /// A comparable shape: mappings as ordered pairs, scalars with whether they were quoted.
    indirect enum Shape: Equatable, CustomStringConvertible {
        case scalar(String, quoted: Bool)
        case mapping([String], [Shape])
        case sequence([Shape])

        init(_ node: YAMLNode) {
            switch node.value {
            case let .scalar(s): self = .scalar(s.text, quoted: s.quoted)
            case let .mapping(entries): self = .mapping(entries.map(\.key), entries.map { Shape($0.value) })
            case let .sequence(items): self = .sequence(items.map(Shape.init))
            }
        }

        init(yams node: Yams.Node) {
            switch node {
            case let .scalar(s): self = .scalar(s.string, quoted: s.style != .plain)
            case let .mapping(m): self = .mapping(m.map { $0.key.string ?? "?" }, m.map { Shape(yams: $0.value) })
            case let .sequence(s): self = .sequence(s.map { Shape(yams: $0) })
            }
        }

        var description: String {
            switch self {
            case let .scalar(text, quoted): quoted ? "\"\(text)\"" : text
            case let .mapping(keys, values): "{" + zip(keys, values).map { "\($0): \($1)" }.joined(separator: ", ") + "}"
            case let .sequence(items): "[" + items.map(\.description).joined(separator: ", ") + "]"
            }
        }
    }

    static let valid: [String] = [
        "a: 1\nb: two\n",
        "server:\n  url: http://a:1\n  token: t # comment\n",
        "list:\n  - a\n  - 'b c'\n  - \"d\\te\"\n",
        "list:\n- a\n- b\nnext: 1\n",
        "bikes:\n  - name: red\n    beacon: \"494E5445-4C4C-495F-524F-434B535F4857:20597:62207\"\n  - name: blue\n    zone: near\n",
        "flow: {url: \"http://a:1\", token: file, n: 3}\n",
        "flow: [a, \"b\", 'c''d', 1.5, {x: y}]\n",
        "multi: [\"/bin/x\",\n        \"--flag\"]\nafter: 1\n",
        "empty:\nnull: ~\nalso: null\n",
        "---\n# comment\nkey: value\n",
        "url: mqtt://user:pass@broker.lan:1883   # mqtts for TLS\n",
        "nested:\n  deeper:\n    deepest: [1, 2]\n  back: x\n",
        "unicode: \"caf\\u00e9 \\U0001F6B2\"\nplain: café\n",
        "- top\n- level\n- list\n",
        "- - nested\n  - list\n- x\n",
        "key:\n  scalar on the next line\n",
        "{a: 1, b: [2, 3]}\n",
        "\u{FEFF}bom: yes\n",
        "crlf: 1\r\nnext: 2\r\n",
    ]

    @Test(arguments: valid)
    func readsWhatLibyamlReads(_ text: String) throws {
        let ours = try #require(try YAMLReader.parse(text))
        let theirs = try #require(try Yams.compose(yaml: text))
        #expect(Shape(ours) == Shape(yams: theirs))
    }

    @Test func theShippedSentinelExampleReadsAsLibyamlReadsIt() throws {
        let text = try String(contentsOf: Paths.repository.appendingPathComponent("deploy/sentinel.example.yaml"), encoding: .utf8)
        let ours = try #require(try YAMLReader.parse(text))
        #expect(Shape(ours) == Shape(yams: try #require(try Yams.compose(yaml: text))))
        #expect(ours["mqtt"]?["url"]?.scalar?.text == "mqtt://user:pass@broker.lan:1883")
        #expect(ours["alarm"]?["command"]?.sequence?.map { $0.scalar?.text } == ["/usr/local/bin/notify-bike-alarm"])
        #expect(ours["ownBikes"]?.sequence?.first?["beacon"]?.scalar?.text == "494E5445-4C4C-495F-524F-434B535F4857:20597:62207")
    }

    @Test func linesPointAtKeysAndValues() throws {
        let root = try #require(try YAMLReader.parse("# header\n\nserver:\n  url: x\nbikes:\n  - name: red\n    zone: near\n"))
        let entries = try #require(root.mapping)
        #expect(entries.map(\.keyLine) == [3, 5])
        #expect(root["server"]?["url"]?.line == 4)
        let bike = try #require(root["bikes"]?.sequence?.first?.mapping)
        #expect(bike.map(\.keyLine) == [6, 7])
    }

    @Test func emptyDocumentsHaveNoRoot() throws {
        #expect(try YAMLReader.parse("") == nil)
        #expect(try YAMLReader.parse("# only a comment\n\n   \n") == nil)
    }

    @Test func scalarsResolveAsTheCoreSchemaSays() throws {
        func scalar(_ text: String) throws -> YAMLScalar? { try YAMLReader.parse("v: \(text)")?["v"]?.scalar }
        #expect(try scalar("300")?.integer == 300)
        #expect(try scalar("-2.5e1")?.number == -25)
        #expect(try scalar("0x1F")?.integer == 31)
        #expect(try scalar("\"300\"")?.number == nil, "quoted text is never a number")
        #expect(try scalar("true")?.bool == true)
        #expect(try scalar("yes")?.bool == nil, "YAML 1.1 booleans are text")
        #expect(try scalar("1.2.3")?.number == nil)
        #expect(try scalar("~")?.isNull == true)
    }

    static let hostile: [(String, Int, String)] = [
        ("a: &anchor 1\nb: *anchor\n", 1, "anchors"),
        ("a: !!str 1\n", 1, "tags"),
        ("a: |\n  text\n", 1, "block scalars"),
        ("a: 1\n\tb: 2\n", 2, "tab"),
        ("a: 1\na: 2\n", 2, "duplicate key 'a'"),
        ("a: {b: 1, b: 2}\n", 1, "duplicate key 'b'"),
        ("a: [1, 2\n", 1, "never closed"),
        ("a: [1, 2\nb: 3\n", 2, "expected ',' or ']' in the list opened on line 1"),
        ("a: \"open\nb: 1\n", 1, "does not end on this line"),
        ("a: b: c\n", 1, "': ' inside a value"),
        ("a: 1\n  b: 2\n", 2, "indentation"),
        ("a:\n  - x\n  b: y\n", 3, "indentation"),
        ("a: 1\n---\nb: 2\n", 2, "only one document"),
        ("%YAML 1.2\n---\na: 1\n", 1, "directives"),
        ("a: \"\\q\"\n", 1, "unknown escape"),
        ("a: \"\\u12\"\n", 1, "hex digits"),
        ("a: 1\u{7}\n", 1, "control character"),
        ("a: 1\rb: 2\n", 1, "carriage return"),
        ("a: [x: y]\n", 1, "inside a list"),
        ("a: {b}\n", 1, "expected ':'"),
        ("a: [1, 2}\n", 1, "expected ',' or ']'"),
        ("a: 1 trailing: x\n", 1, "': ' inside a value"),
        ("a: [1] x\n", 1, "unexpected text after the value"),
        ("? complex\n", 1, "complex keys"),
        ("- a\nb: 1\n", 2, "unexpected text"),
    ]

    @Test(arguments: hostile)
    func hostileInputIsRefusedWithItsLine(_ text: String, _ line: Int, _ message: String) {
        #expect {
            _ = try YAMLReader.parse(text)
        } throws: { error in
            guard let error = error as? YAMLError else { return false }
            return error.line == line && error.message.contains(message)
        }
    }

    @Test func deepNestingIsRefusedNotARecursionCrash() {
        for text in [String(repeating: "[", count: 100_000), String(repeating: "{a: ", count: 50_000),
                     String(repeating: "- ", count: 50_000) + "x",
                     (0..<2_000).map { String(repeating: " ", count: $0) + "k\($0):" }.joined(separator: "\n")] {
            #expect(throws: YAMLError.self) { try YAMLReader.parse(text) }
        }
    }

    @Test func mutatedConfigsNeverTrap() throws {
        let seed = try String(contentsOf: Paths.repository.appendingPathComponent("deploy/sentinel.example.yaml"), encoding: .utf8)
        let bytes = Array(seed.utf8)
        let alphabet = Array(":-[]{},#'\"\\ \n\t&*!|>?%@`~0aZ\r".utf8)
        var state: UInt64 = 0x5EED
        func next() -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int(truncatingIfNeeded: (z ^ (z >> 31)) >> 1)
        }
        var accepted = 0
        for _ in 0..<3_000 {
            var mutated = bytes
            for _ in 0..<(1 + next() % 6) {
                let at = next() % mutated.count
                switch next() % 3 {
                case 0: mutated[at] = alphabet[next() % alphabet.count]
                case 1: mutated.insert(alphabet[next() % alphabet.count], at: at)
                default: mutated.remove(at: at)
                }
            }
            if (try? YAMLReader.parse(String(decoding: mutated, as: UTF8.self))) != nil { accepted += 1 }
        }
        // Some mutations (inside comments, values) stay valid; most break the structure.
        #expect(accepted > 0 && accepted < 3_000)
    }
}
