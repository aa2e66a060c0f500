/// Decodes `Decodable` values from a `YAMLNode` tree. Errors are the standard `DecodingError`s
/// with the coding path, so a caller can find the node (and its line) they point at.
///
/// Scalars are read as the type asks: any scalar is text, plain `true`/`false` a bool, plain
/// numbers numbers; quoted text is only ever text. Unknown keys are ignored here (check them
/// against a schema first).
public struct YAMLNodeDecoder {
    public init() {}

    public func decode<T: Decodable>(_ type: T.Type, from node: YAMLNode) throws -> T {
        try T(from: NodeDecoder(node: node, codingPath: []))
    }
}

private struct NodeDecoder: Decoder {
    let node: YAMLNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard let entries = node.mapping else {
            throw DecodingError.typeMismatch([String: Any].self, .init(codingPath: codingPath, debugDescription: "expected a mapping"))
        }
        return KeyedDecodingContainer(KeyedContainer(entries: entries, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard let items = node.sequence else {
            throw DecodingError.typeMismatch([Any].self, .init(codingPath: codingPath, debugDescription: "expected a list"))
        }
        return UnkeyedContainer(items: items, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueContainer(node: node, codingPath: codingPath)
    }
}

private struct IndexKey: CodingKey {
    var intValue: Int?
    var stringValue: String { "\(intValue ?? 0)" }
    init(_ index: Int) { intValue = index }
    init?(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}

/// Reads one scalar node as the requested type.
private struct Scalars {
    let node: YAMLNode
    let codingPath: [any CodingKey]

    private func scalar<T>(_ type: T.Type) throws -> YAMLScalar {
        guard let scalar = node.scalar else {
            throw DecodingError.typeMismatch(type, .init(codingPath: codingPath, debugDescription: "expected a single value, found a mapping or list"))
        }
        guard !scalar.isNull else {
            throw DecodingError.valueNotFound(type, .init(codingPath: codingPath, debugDescription: "the value is empty"))
        }
        return scalar
    }

    private func mismatch<T>(_ type: T.Type, _ scalar: YAMLScalar) -> DecodingError {
        .typeMismatch(type, .init(codingPath: codingPath, debugDescription: "found '\(scalar.text)'"))
    }

    var isNull: Bool { node.scalar?.isNull == true }

    func string() throws -> String { try scalar(String.self).text }

    func bool() throws -> Bool {
        let s = try scalar(Bool.self)
        guard let value = s.bool else { throw mismatch(Bool.self, s) }
        return value
    }

    func double() throws -> Double {
        let s = try scalar(Double.self)
        guard let value = s.number else { throw mismatch(Double.self, s) }
        return value
    }

    func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        let s = try scalar(type)
        guard let value = s.integer, let exact = T(exactly: value) else { throw mismatch(type, s) }
        return exact
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try T(from: NodeDecoder(node: node, codingPath: codingPath))
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let entries: [YAMLEntry]
    let codingPath: [any CodingKey]

    var allKeys: [Key] { entries.compactMap { Key(stringValue: $0.key) } }

    func contains(_ key: Key) -> Bool { entries.contains { $0.key == key.stringValue } }

    private func node(_ key: Key) throws -> Scalars {
        guard let entry = entries.first(where: { $0.key == key.stringValue }) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no '\(key.stringValue)'"))
        }
        return Scalars(node: entry.value, codingPath: codingPath + [key])
    }

    func decodeNil(forKey key: Key) throws -> Bool { try node(key).isNull }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try node(key).bool() }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try node(key).string() }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try node(key).double() }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { Float(try node(key).double()) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try node(key).integer(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try node(key).integer(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try node(key).integer(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try node(key).integer(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try node(key).integer(type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try node(key).integer(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try node(key).integer(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try node(key).integer(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try node(key).integer(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try node(key).integer(type) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try node(key).decode(type) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        let scalars = try node(key)
        return try NodeDecoder(node: scalars.node, codingPath: scalars.codingPath).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let scalars = try node(key)
        return try NodeDecoder(node: scalars.node, codingPath: scalars.codingPath).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        NodeDecoder(node: YAMLNode(.mapping(entries), line: entries.first?.keyLine ?? 1), codingPath: codingPath)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        let scalars = try node(key)
        return NodeDecoder(node: scalars.node, codingPath: scalars.codingPath)
    }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let items: [YAMLNode]
    let codingPath: [any CodingKey]
    var currentIndex = 0

    init(items: [YAMLNode], codingPath: [any CodingKey]) {
        self.items = items
        self.codingPath = codingPath
    }

    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    private mutating func next<T>(_ type: T.Type) throws -> Scalars {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(codingPath: codingPath + [IndexKey(currentIndex)], debugDescription: "the list has no more items"))
        }
        defer { currentIndex += 1 }
        return Scalars(node: items[currentIndex], codingPath: codingPath + [IndexKey(currentIndex)])
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, items[currentIndex].scalar?.isNull == true else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type).bool() }
    mutating func decode(_ type: String.Type) throws -> String { try next(type).string() }
    mutating func decode(_ type: Double.Type) throws -> Double { try next(type).double() }
    mutating func decode(_ type: Float.Type) throws -> Float { Float(try next(type).double()) }
    mutating func decode(_ type: Int.Type) throws -> Int { try next(type).integer(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next(type).integer(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next(type).integer(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next(type).integer(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next(type).integer(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next(type).integer(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next(type).integer(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next(type).integer(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next(type).integer(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next(type).integer(type) }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next(type).decode(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let scalars = try next([String: Any].self)
        return try NodeDecoder(node: scalars.node, codingPath: scalars.codingPath).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let scalars = try next([Any].self)
        return try NodeDecoder(node: scalars.node, codingPath: scalars.codingPath).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let scalars = try next(Any.self)
        return NodeDecoder(node: scalars.node, codingPath: scalars.codingPath)
    }
}

private struct SingleValueContainer: SingleValueDecodingContainer {
    let node: YAMLNode
    let codingPath: [any CodingKey]

    private var scalars: Scalars { Scalars(node: node, codingPath: codingPath) }

    func decodeNil() -> Bool { scalars.isNull }
    func decode(_ type: Bool.Type) throws -> Bool { try scalars.bool() }
    func decode(_ type: String.Type) throws -> String { try scalars.string() }
    func decode(_ type: Double.Type) throws -> Double { try scalars.double() }
    func decode(_ type: Float.Type) throws -> Float { Float(try scalars.double()) }
    func decode(_ type: Int.Type) throws -> Int { try scalars.integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try scalars.integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try scalars.integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try scalars.integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try scalars.integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try scalars.integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try scalars.integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try scalars.integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try scalars.integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try scalars.integer(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try scalars.decode(type) }
}
