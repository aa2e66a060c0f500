/// A node of a YAML document, with the line it starts on (1-based) for error messages.
public struct YAMLNode: Equatable, Sendable {
    public indirect enum Value: Equatable, Sendable {
        case scalar(YAMLScalar)
        case mapping([YAMLEntry])
        case sequence([YAMLNode])
    }

    public var value: Value
    public var line: Int

    public init(_ value: Value, line: Int) {
        self.value = value
        self.line = line
    }

    public var scalar: YAMLScalar? {
        if case let .scalar(scalar) = value { return scalar }
        return nil
    }

    public var mapping: [YAMLEntry]? {
        if case let .mapping(entries) = value { return entries }
        return nil
    }

    public var sequence: [YAMLNode]? {
        if case let .sequence(items) = value { return items }
        return nil
    }

    /// The value under `key` of a mapping.
    public subscript(key: String) -> YAMLNode? {
        mapping?.first { $0.key == key }?.value
    }
}

/// One `key: value` of a mapping. Keys are scalars; their line is where the key is written.
public struct YAMLEntry: Equatable, Sendable {
    public var key: String
    public var keyLine: Int
    public var value: YAMLNode

    public init(key: String, keyLine: Int, value: YAMLNode) {
        self.key = key
        self.keyLine = keyLine
        self.value = value
    }
}

/// A scalar as written: quoted text is always text, plain text may be null, a bool or a number.
public struct YAMLScalar: Equatable, Sendable {
    public var text: String
    public var quoted: Bool

    public init(_ text: String, quoted: Bool) {
        self.text = text
        self.quoted = quoted
    }

    /// `key:` with nothing after it, `~` or `null` (YAML 1.2 core schema).
    public var isNull: Bool {
        !quoted && ["", "~", "null", "Null", "NULL"].contains(text)
    }

    public var bool: Bool? {
        guard !quoted else { return nil }
        switch text {
        case "true", "True", "TRUE": return true
        case "false", "False", "FALSE": return false
        default: return nil
        }
    }

    /// Decimal integers, as the core schema writes them (`-12`, `+3`, `0x1F` and `0o17` too).
    public var integer: Int? {
        guard !quoted else { return nil }
        var digits = Substring(text)
        var negative = false
        if let sign = digits.first, sign == "-" || sign == "+" {
            negative = sign == "-"
            digits = digits.dropFirst()
        }
        var radix = 10
        if digits.hasPrefix("0x") { radix = 16; digits = digits.dropFirst(2) }
        else if digits.hasPrefix("0o") { radix = 8; digits = digits.dropFirst(2) }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isHexDigit }), let magnitude = Int(digits, radix: radix) else { return nil }
        return negative ? -magnitude : magnitude
    }

    /// Decimal numbers with optional fraction and exponent, and `.inf`/`.nan` (core schema).
    public var number: Double? {
        guard !quoted else { return nil }
        switch text {
        case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF": return .infinity
        case "-.inf", "-.Inf", "-.INF": return -.infinity
        case ".nan", ".NaN", ".NAN": return .nan
        default: break
        }
        if let integer { return Double(integer) }
        guard text.contains(where: \.isNumber), text.allSatisfy({ "0123456789+-.eE".contains($0) }) else { return nil }
        return Double(text)
    }
}
