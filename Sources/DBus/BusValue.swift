/// A D-Bus value as a plain Swift tree, decoded from or encoded into a message.
///
/// Messages are read into this tree in one place (`BusMessage.arguments()`), so code that
/// interprets BlueZ's replies and signals is pure and never touches libdbus iterators. Arrays and
/// dictionaries keep their full type signature so an empty container still tells its type
/// (python-dbusmock's `AddDevice` sends an empty `aa{qv}` where BlueZ sends `a{qv}`).
public indirect enum BusValue: Sendable, Equatable {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    /// `signature` is the container's full type, e.g. `ay` or `aa{qv}`.
    case array(signature: String, [BusValue])
    /// `signature` is the container's full type, e.g. `a{sv}`.
    case dictionary(signature: String, [BusDictEntry])
    case structure([BusValue])
    case variant(BusValue)

    /// The D-Bus type signature of this value.
    public var signature: String {
        switch self {
        case .byte: "y"
        case .boolean: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case let .array(signature, _): signature
        case let .dictionary(signature, _): signature
        case let .structure(members): "(" + members.map(\.signature).joined() + ")"
        case .variant: "v"
        }
    }

    /// A string-keyed dictionary of variants (`a{sv}`), the shape of D-Bus property sets.
    public static func properties(_ entries: [(String, BusValue)]) -> BusValue {
        .dictionary(signature: "a{sv}", entries.map { BusDictEntry(key: .string($0.0), value: .variant($0.1)) })
    }
}

public struct BusDictEntry: Sendable, Equatable {
    public var key: BusValue
    public var value: BusValue

    public init(key: BusValue, value: BusValue) {
        self.key = key
        self.value = value
    }
}

/// Typed accessors: a value of another type is a `BusError.typeMismatch`, never a crash.
extension BusValue {
    public func string() throws(BusError) -> String {
        guard case let .string(s) = self else { throw mismatch("s") }
        return s
    }

    public func objectPath() throws(BusError) -> String {
        guard case let .objectPath(p) = self else { throw mismatch("o") }
        return p
    }

    public func boolean() throws(BusError) -> Bool {
        guard case let .boolean(b) = self else { throw mismatch("b") }
        return b
    }

    public func int16() throws(BusError) -> Int16 {
        guard case let .int16(n) = self else { throw mismatch("n") }
        return n
    }

    public func uint16() throws(BusError) -> UInt16 {
        guard case let .uint16(q) = self else { throw mismatch("q") }
        return q
    }

    /// The contents of a variant.
    public func variant() throws(BusError) -> BusValue {
        guard case let .variant(inner) = self else { throw mismatch("v") }
        return inner
    }

    /// The bytes of an `ay`.
    public func bytes() throws(BusError) -> [UInt8] {
        guard case let .array("ay", elements) = self else { throw mismatch("ay") }
        var out = [UInt8]()
        out.reserveCapacity(elements.count)
        for element in elements {
            guard case let .byte(b) = element else { throw mismatch("ay") }
            out.append(b)
        }
        return out
    }

    /// The elements of an array, checked against the expected full signature (e.g. `as`).
    public func array(_ expected: String) throws(BusError) -> [BusValue] {
        guard case let .array(signature, elements) = self, signature == expected else { throw mismatch(expected) }
        return elements
    }

    /// The entries of a dictionary, checked against the expected full signature (e.g. `a{qv}`).
    public func dictionary(_ expected: String) throws(BusError) -> [BusDictEntry] {
        guard case let .dictionary(signature, entries) = self, signature == expected else { throw mismatch(expected) }
        return entries
    }

    /// An `a{sv}` as a Swift dictionary with the variants unwrapped; the last duplicate key wins.
    public func propertyMap() throws(BusError) -> [String: BusValue] {
        var map = [String: BusValue]()
        for entry in try dictionary("a{sv}") {
            map[try entry.key.string()] = try entry.value.variant()
        }
        return map
    }

    private func mismatch(_ expected: String) -> BusError {
        .typeMismatch(expected: expected, found: signature)
    }
}
