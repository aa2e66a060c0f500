/// Why a document was refused, with the line (1-based) to look at.
public struct YAMLError: Error, Equatable, Sendable, CustomStringConvertible {
    public var line: Int
    public var message: String

    public init(line: Int, _ message: String) {
        self.line = line
        self.message = message
    }

    public var description: String { "line \(line): \(message)" }
}

/// Reads the YAML a configuration file needs, and refuses the rest with a line number.
///
/// Supported: block mappings and sequences (including `- key: value` items), flow mappings and
/// sequences (`{a: 1}`, `[a, "b"]`, also across lines), plain, single- and double-quoted scalars,
/// comments, one optional `---`. Refused, so nothing is silently misread: anchors, aliases, tags,
/// block scalars (`|`, `>`), multi-line plain or quoted scalars, several documents, duplicate
/// keys, tabs in indentation, control characters, nesting deeper than `maximumDepth`.
/// A pure function of the text: no I/O, never traps on any input.
public enum YAMLReader {
    public static let maximumDepth = 64

    /// The document's root node; nil when it holds nothing but comments and blank lines.
    public static func parse(_ text: String) throws(YAMLError) -> YAMLNode? {
        var parser = try Parser(text)
        return try parser.document()
    }
}

private struct Parser {
    private let lines: [[UInt8]]
    private var row = 0
    private var col = 0

    init(_ text: String) throws(YAMLError) {
        var lines: [[UInt8]] = []
        var current: [UInt8] = []
        var carriageReturn = false
        for byte in text.utf8 {
            if carriageReturn, byte != UInt8(ascii: "\n") {
                throw YAMLError(line: lines.count + 1, "a carriage return without a line feed")
            }
            carriageReturn = byte == UInt8(ascii: "\r")
            if carriageReturn { continue }
            if byte == UInt8(ascii: "\n") {
                lines.append(current)
                current = []
                continue
            }
            if byte < 0x20 && byte != UInt8(ascii: "\t") || byte == 0x7F {
                throw YAMLError(line: lines.count + 1, "control character 0x\(String(byte, radix: 16)) is not allowed")
            }
            current.append(byte)
        }
        lines.append(current)
        // A byte-order mark at the very start is allowed and skipped.
        if let first = lines.first, first.starts(with: [0xEF, 0xBB, 0xBF]) { lines[0] = Array(first.dropFirst(3)) }
        self.lines = lines
    }

    // MARK: - Document

    mutating func document() throws(YAMLError) -> YAMLNode? {
        try seekContent()
        if !atEnd, col == 0, isMarker("---") {
            col = 3
            try expectLineEnd()
            try advanceToContent()
        }
        if !atEnd, col == 0, isDirective { throw error("directives (%) are not supported") }
        var root: YAMLNode?
        if !atEnd, !(col == 0 && isMarker("...")) {
            guard col == 0 else { throw error("the document must start at the first column") }
            root = try blockNode(depth: 0)
        }
        if !atEnd, col == 0, isMarker("...") {
            col = 3
            try expectLineEnd()
            try advanceToContent()
        }
        guard atEnd else {
            if col == 0, isMarker("---") { throw error("only one document is allowed") }
            throw error("unexpected text at indentation \(col); check the indentation of this line and the ones above")
        }
        return root
    }

    // MARK: - Block structure

    /// The node that starts at the cursor (the first content of a line, or after `- `); returns
    /// with the cursor at the next content line or the end.
    private mutating func blockNode(depth: Int) throws(YAMLError) -> YAMLNode {
        guard depth < YAMLReader.maximumDepth else { throw error("nesting deeper than \(YAMLReader.maximumDepth) levels") }
        if isSequenceDash(at: col) { return try blockSequence(indent: col, depth: depth) }
        if try scanKey() != nil { return try blockMapping(indent: col, depth: depth) }
        let value = try inlineValue(depth: depth)
        try expectLineEnd()
        try advanceToContent()
        return value
    }

    private mutating func blockMapping(indent: Int, depth: Int) throws(YAMLError) -> YAMLNode {
        let start = row + 1
        var entries: [YAMLEntry] = []
        var keys: Set<String> = []
        while true {
            guard let (key, afterColon) = try scanKey() else {
                throw error(isSequenceDash(at: col) ? "a list item where a key was expected" : "expected 'key: value'")
            }
            let keyLine = row + 1
            guard keys.insert(key).inserted else { throw error("duplicate key '\(key)'") }
            col = afterColon
            skipSpaces()
            let value: YAMLNode
            if atLineEnd {
                try advanceToContent()
                if !atEnd, col > indent {
                    value = try blockNode(depth: depth + 1)
                } else if !atEnd, col == indent, isSequenceDash(at: col) {
                    // A list may sit at its key's indentation.
                    value = try blockSequence(indent: col, depth: depth + 1)
                } else {
                    value = YAMLNode(.scalar(YAMLScalar("", quoted: false)), line: keyLine)
                }
            } else {
                value = try inlineValue(depth: depth + 1)
                try expectLineEnd()
                try advanceToContent()
            }
            entries.append(YAMLEntry(key: key, keyLine: keyLine, value: value))
            if atEnd || col < indent || atDocumentMarker { break }
            guard col == indent else { throw error("unexpected indentation (\(col) spaces; the keys above have \(indent))") }
        }
        return YAMLNode(.mapping(entries), line: start)
    }

    private mutating func blockSequence(indent: Int, depth: Int) throws(YAMLError) -> YAMLNode {
        let start = row + 1
        var items: [YAMLNode] = []
        while true {
            guard isSequenceDash(at: col) else { break }
            let itemLine = row + 1
            col += 1
            skipSpaces()
            if atLineEnd {
                try advanceToContent()
                if !atEnd, col > indent {
                    items.append(try blockNode(depth: depth + 1))
                } else {
                    items.append(YAMLNode(.scalar(YAMLScalar("", quoted: false)), line: itemLine))
                }
            } else {
                items.append(try blockNode(depth: depth + 1))
            }
            if atEnd || col < indent || atDocumentMarker { break }
            guard col == indent else { throw error("unexpected indentation (\(col) spaces; the list items above have \(indent))") }
        }
        return YAMLNode(.sequence(items), line: start)
    }

    /// A `key:` at the cursor (followed by a space or the end of the line): the key and the column
    /// after its colon; nil when the line holds no key there.
    private func scanKey() throws(YAMLError) -> (String, Int)? {
        guard let first = byte(col) else { return nil }
        if first == UInt8(ascii: "\"") || first == UInt8(ascii: "'") {
            var probe = self
            let key = try probe.quoted()
            probe.skipSpaces()
            guard probe.byte(probe.col) == UInt8(ascii: ":"), probe.isBreakOrSpace(probe.col + 1) else { return nil }
            return (key, probe.col + 1)
        }
        if Self.flowStart.contains(first) || isSequenceDash(at: col) || first == UInt8(ascii: "#") { return nil }
        var end = col
        while let c = byte(end) {
            if c == UInt8(ascii: "#"), end > col, isSpace(end - 1) { return nil }
            if c == UInt8(ascii: ":"), isBreakOrSpace(end + 1) {
                let key = text(col, end).trimmingTrailingSpaces
                guard !key.isEmpty else { return nil }
                try checkPlainStart(first)
                return (key, end + 1)
            }
            end += 1
        }
        return nil
    }

    // MARK: - Values on one line (and flow collections, which may span lines)

    private mutating func inlineValue(depth: Int) throws(YAMLError) -> YAMLNode {
        guard depth < YAMLReader.maximumDepth else { throw error("nesting deeper than \(YAMLReader.maximumDepth) levels") }
        let line = row + 1
        switch byte(col) {
        case UInt8(ascii: "["): return try flowSequence(depth: depth)
        case UInt8(ascii: "{"): return try flowMapping(depth: depth)
        case UInt8(ascii: "\""), UInt8(ascii: "'"): return YAMLNode(.scalar(YAMLScalar(try quoted(), quoted: true)), line: line)
        default: break
        }
        if let first = byte(col) { try checkPlainStart(first) }
        var end = col
        while let c = byte(end) {
            if c == UInt8(ascii: "#"), end > col, isSpace(end - 1) { break }
            if c == UInt8(ascii: ":"), isBreakOrSpace(end + 1) {
                throw error("': ' inside a value; put the value in quotes")
            }
            end += 1
        }
        let value = text(col, end).trimmingTrailingSpaces
        col = end
        return YAMLNode(.scalar(YAMLScalar(value, quoted: false)), line: line)
    }

    private mutating func flowSequence(depth: Int) throws(YAMLError) -> YAMLNode {
        let start = row + 1
        col += 1
        var items: [YAMLNode] = []
        while true {
            try skipFlowSpace(opened: "[", line: start)
            if byte(col) == UInt8(ascii: "]") { col += 1; break }
            items.append(try flowValue(depth: depth + 1, inMapping: false))
            try skipFlowSpace(opened: "[", line: start)
            switch byte(col) {
            case UInt8(ascii: ","): col += 1
            case UInt8(ascii: "]"): col += 1; return YAMLNode(.sequence(items), line: start)
            default: throw error("expected ',' or ']' in the list opened on line \(start)")
            }
        }
        return YAMLNode(.sequence(items), line: start)
    }

    private mutating func flowMapping(depth: Int) throws(YAMLError) -> YAMLNode {
        let start = row + 1
        col += 1
        var entries: [YAMLEntry] = []
        var keys: Set<String> = []
        while true {
            try skipFlowSpace(opened: "{", line: start)
            if byte(col) == UInt8(ascii: "}") { col += 1; break }
            let keyLine = row + 1
            let keyNode = try flowValue(depth: depth + 1, inMapping: true)
            guard let key = keyNode.scalar?.text, !key.isEmpty else { throw error("a key must be text") }
            guard keys.insert(key).inserted else { throw error("duplicate key '\(key)'") }
            skipSpaces()
            guard byte(col) == UInt8(ascii: ":") else { throw error("expected ':' after the key '\(key)'") }
            col += 1
            try skipFlowSpace(opened: "{", line: start)
            let value: YAMLNode
            if byte(col) == UInt8(ascii: ",") || byte(col) == UInt8(ascii: "}") {
                value = YAMLNode(.scalar(YAMLScalar("", quoted: false)), line: row + 1)
            } else {
                value = try flowValue(depth: depth + 1, inMapping: true)
            }
            entries.append(YAMLEntry(key: key, keyLine: keyLine, value: value))
            try skipFlowSpace(opened: "{", line: start)
            switch byte(col) {
            case UInt8(ascii: ","): col += 1
            case UInt8(ascii: "}"): col += 1; return YAMLNode(.mapping(entries), line: start)
            default: throw error("expected ',' or '}' in the mapping opened on line \(start)")
            }
        }
        return YAMLNode(.mapping(entries), line: start)
    }

    /// A value inside `[…]` or `{…}`; in a mapping a plain scalar also ends at `: `.
    private mutating func flowValue(depth: Int, inMapping: Bool) throws(YAMLError) -> YAMLNode {
        guard depth < YAMLReader.maximumDepth else { throw error("nesting deeper than \(YAMLReader.maximumDepth) levels") }
        let line = row + 1
        switch byte(col) {
        case UInt8(ascii: "["): return try flowSequence(depth: depth)
        case UInt8(ascii: "{"): return try flowMapping(depth: depth)
        case UInt8(ascii: "\""), UInt8(ascii: "'"): return YAMLNode(.scalar(YAMLScalar(try quoted(), quoted: true)), line: line)
        default: break
        }
        if let first = byte(col) { try checkPlainStart(first) }
        var end = col
        while let c = byte(end) {
            if c == UInt8(ascii: ",") || c == UInt8(ascii: "]") || c == UInt8(ascii: "}") || c == UInt8(ascii: "[") || c == UInt8(ascii: "{") { break }
            if c == UInt8(ascii: "#"), end > col, isSpace(end - 1) { break }
            if c == UInt8(ascii: ":"), isBreakOrSpace(end + 1) || isFlowEnd(end + 1) {
                guard inMapping else { throw error("'key: value' inside a list; write it as {key: value}") }
                break
            }
            end += 1
        }
        let value = text(col, end).trimmingTrailingSpaces
        guard !value.isEmpty else { throw error("expected a value") }
        col = end
        return YAMLNode(.scalar(YAMLScalar(value, quoted: false)), line: line)
    }

    /// A single- or double-quoted scalar at the cursor, which must end on the same line.
    private mutating func quoted() throws(YAMLError) -> String {
        guard let quote = byte(col) else { throw error("expected a quoted value") }
        var bytes: [UInt8] = []
        var i = col + 1
        while true {
            guard let c = byte(i) else { throw error("the quoted value does not end on this line (multi-line quoted values are not supported)") }
            if c == quote {
                if quote == UInt8(ascii: "'"), byte(i + 1) == quote {
                    bytes.append(quote)
                    i += 2
                    continue
                }
                col = i + 1
                return String(decoding: bytes, as: UTF8.self)
            }
            if c == UInt8(ascii: "\\"), quote == UInt8(ascii: "\"") {
                i = try escape(at: i, into: &bytes)
                continue
            }
            bytes.append(c)
            i += 1
        }
    }

    /// The escape sequence starting at the backslash at `i`; returns the index after it.
    private func escape(at i: Int, into bytes: inout [UInt8]) throws(YAMLError) -> Int {
        guard let code = byte(i + 1) else { throw error("a backslash ends the line inside a quoted value") }
        let simple: [UInt8: UInt8] = [
            UInt8(ascii: "0"): 0, UInt8(ascii: "a"): 7, UInt8(ascii: "b"): 8, UInt8(ascii: "t"): 9, UInt8(ascii: "\t"): 9,
            UInt8(ascii: "n"): 10, UInt8(ascii: "v"): 11, UInt8(ascii: "f"): 12, UInt8(ascii: "r"): 13, UInt8(ascii: "e"): 27,
            UInt8(ascii: " "): 32, UInt8(ascii: "\""): 34, UInt8(ascii: "/"): 47, UInt8(ascii: "\\"): 92,
        ]
        if let value = simple[code] {
            bytes.append(value)
            return i + 2
        }
        let digits: Int
        switch code {
        case UInt8(ascii: "x"): digits = 2
        case UInt8(ascii: "u"): digits = 4
        case UInt8(ascii: "U"): digits = 8
        default: throw error("unknown escape '\\\(String(decoding: [code], as: UTF8.self))' in a quoted value")
        }
        let hex = text(i + 2, i + 2 + digits)
        guard hex.utf8.count == digits, hex.allSatisfy(\.isHexDigit), let value = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(value) else {
            throw error("'\\\(String(decoding: [code], as: UTF8.self))' needs \(digits) hex digits naming a character")
        }
        bytes.append(contentsOf: Array(String(Character(scalar)).utf8))
        return i + 2 + digits
    }

    // MARK: - Cursor

    private static let flowStart: Set<UInt8> = [UInt8(ascii: "["), UInt8(ascii: "{")]

    private var atEnd: Bool { row >= lines.count }

    private func byte(_ column: Int) -> UInt8? {
        guard row < lines.count, column >= 0, column < lines[row].count else { return nil }
        return lines[row][column]
    }

    private func isSpace(_ column: Int) -> Bool {
        byte(column) == UInt8(ascii: " ") || byte(column) == UInt8(ascii: "\t")
    }

    private func isBreakOrSpace(_ column: Int) -> Bool { byte(column) == nil || isSpace(column) }

    private func isFlowEnd(_ column: Int) -> Bool {
        byte(column) == UInt8(ascii: ",") || byte(column) == UInt8(ascii: "}") || byte(column) == UInt8(ascii: "]")
    }

    private func isSequenceDash(at column: Int) -> Bool {
        byte(column) == UInt8(ascii: "-") && isBreakOrSpace(column + 1)
    }

    private func isMarker(_ marker: String) -> Bool {
        guard row < lines.count else { return false }
        let line = lines[row]
        return line.starts(with: Array(marker.utf8)) && (line.count == 3 || line[3] == UInt8(ascii: " ") || line[3] == UInt8(ascii: "\t"))
    }

    private var atDocumentMarker: Bool { col == 0 && (isMarker("---") || isMarker("...")) }

    private var isDirective: Bool { byte(0) == UInt8(ascii: "%") }

    /// Comments and the end of the line, after optional spaces.
    private var atLineEnd: Bool {
        var i = col
        while isSpace(i) { i += 1 }
        return byte(i) == nil || byte(i) == UInt8(ascii: "#") && (i == 0 || isSpace(i - 1))
    }

    private mutating func skipSpaces() {
        while isSpace(col) { col += 1 }
    }

    private mutating func expectLineEnd() throws(YAMLError) {
        guard atLineEnd else { throw error("unexpected text after the value") }
    }

    /// Moves to the first content of the next line that has any (skipping blank and comment
    /// lines), or to the end.
    private mutating func advanceToContent() throws(YAMLError) {
        row += 1
        try seekContent()
    }

    /// Moves to the first content of this line or the next that has any; refuses tabs in indentation.
    private mutating func seekContent() throws(YAMLError) {
        while row < lines.count {
            col = 0
            while byte(col) == UInt8(ascii: " ") { col += 1 }
            if byte(col) == UInt8(ascii: "\t") {
                var i = col
                while isSpace(i) { i += 1 }
                if byte(i) != nil, byte(i) != UInt8(ascii: "#") { throw error("a tab in the indentation; indent with spaces") }
            }
            if !atLineEnd { return }
            row += 1
        }
        col = 0
    }

    /// Inside a flow collection: spaces, comments and line breaks.
    private mutating func skipFlowSpace(opened: String, line: Int) throws(YAMLError) {
        while true {
            skipSpaces()
            if !atLineEnd { return }
            row += 1
            col = 0
            guard row < lines.count else { throw YAMLError(line: line, "the '\(opened)' opened on this line is never closed") }
        }
    }

    private func checkPlainStart(_ first: UInt8) throws(YAMLError) {
        switch first {
        case UInt8(ascii: "&"), UInt8(ascii: "*"): throw error("anchors and aliases (& *) are not supported; write the value out")
        case UInt8(ascii: "!"): throw error("tags (!) are not supported")
        case UInt8(ascii: "|"), UInt8(ascii: ">"): throw error("block scalars (| >) are not supported; put the value in quotes on one line")
        case UInt8(ascii: "?"): throw error("complex keys (?) are not supported")
        case UInt8(ascii: "@"), UInt8(ascii: "`"): throw error("a value cannot start with '\(String(decoding: [first], as: UTF8.self))'; put it in quotes")
        default: return
        }
    }

    private func text(_ from: Int, _ to: Int) -> String {
        guard row < lines.count else { return "" }
        let line = lines[row]
        let lower = min(max(from, 0), line.count), upper = min(max(to, lower), line.count)
        return String(decoding: line[lower..<upper], as: UTF8.self)
    }

    private func error(_ message: String) -> YAMLError {
        YAMLError(line: min(row, max(lines.count - 1, 0)) + 1, message)
    }
}

private extension String {
    var trimmingTrailingSpaces: String {
        var end = endIndex
        while end > startIndex, let last = self[..<end].last, last == " " || last == "\t" { end = index(before: end) }
        return String(self[..<end])
    }
}
