import CDBus

/// Moves values between libdbus message iterators and `BusValue` trees. The only code that walks
/// iterators; libdbus has already validated the wire data against its signature when it read it.
enum BusCodec {
    /// Reads the value the iterator points at (it does not advance).
    static func read(_ iter: inout DBusMessageIter) throws(BusError) -> BusValue {
        let type = dbus_message_iter_get_arg_type(&iter)
        switch type {
        case BusType.byte: return .byte(basic(&iter, UInt8(0)))
        case BusType.boolean: return .boolean(basic(&iter, dbus_bool_t(0)) != 0)
        case BusType.int16: return .int16(basic(&iter, Int16(0)))
        case BusType.uint16: return .uint16(basic(&iter, UInt16(0)))
        case BusType.int32: return .int32(basic(&iter, Int32(0)))
        case BusType.uint32: return .uint32(basic(&iter, UInt32(0)))
        case BusType.int64: return .int64(basic(&iter, Int64(0)))
        case BusType.uint64: return .uint64(basic(&iter, UInt64(0)))
        case BusType.double: return .double(basic(&iter, Double(0)))
        case BusType.string: return .string(try text(&iter))
        case BusType.objectPath: return .objectPath(try text(&iter))
        case BusType.signature: return .signature(try text(&iter))
        case BusType.variant:
            var inner = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &inner)
            return .variant(try read(&inner))
        case BusType.structure:
            var inner = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &inner)
            return .structure(try readAll(&inner))
        case BusType.array:
            let signature = currentSignature(&iter)
            var inner = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &inner)
            if dbus_message_iter_get_element_type(&iter) == BusType.dictEntry {
                var entries = [BusDictEntry]()
                while dbus_message_iter_get_arg_type(&inner) == BusType.dictEntry {
                    var pair = DBusMessageIter()
                    dbus_message_iter_recurse(&inner, &pair)
                    let key = try read(&pair)
                    guard dbus_message_iter_next(&pair) != 0 else {
                        throw .typeMismatch(expected: "dictionary entry with a value", found: signature)
                    }
                    entries.append(BusDictEntry(key: key, value: try read(&pair)))
                    dbus_message_iter_next(&inner)
                }
                return .dictionary(signature: signature, entries)
            }
            return .array(signature: signature, try readAll(&inner))
        default:
            let found = Unicode.Scalar(UInt32(truncatingIfNeeded: type)).map { String(Character($0)) } ?? "\(type)"
            throw .typeMismatch(expected: "a type bikebeacon reads (no Unix file descriptors)", found: found)
        }
    }

    /// Appends a value; containers are checked against their declared signatures first, because
    /// libdbus would otherwise write a message that does not match its own header.
    static func append(_ value: BusValue, to iter: inout DBusMessageIter) throws(BusError) {
        let ok: Bool
        switch value {
        case let .byte(v): ok = appendBasic(&iter, BusType.byte, v)
        case let .boolean(v): ok = appendBasic(&iter, BusType.boolean, dbus_bool_t(v ? 1 : 0))
        case let .int16(v): ok = appendBasic(&iter, BusType.int16, v)
        case let .uint16(v): ok = appendBasic(&iter, BusType.uint16, v)
        case let .int32(v): ok = appendBasic(&iter, BusType.int32, v)
        case let .uint32(v): ok = appendBasic(&iter, BusType.uint32, v)
        case let .int64(v): ok = appendBasic(&iter, BusType.int64, v)
        case let .uint64(v): ok = appendBasic(&iter, BusType.uint64, v)
        case let .double(v): ok = appendBasic(&iter, BusType.double, v)
        case let .string(s): ok = appendText(&iter, BusType.string, s)
        case let .objectPath(s): ok = appendText(&iter, BusType.objectPath, s)
        case let .signature(s): ok = appendText(&iter, BusType.signature, s)
        case let .variant(inner):
            try appendContainer(&iter, BusType.variant, inner.signature, [inner])
            return
        case let .structure(members):
            try appendContainer(&iter, BusType.structure, nil, members)
            return
        case let .array(signature, elements):
            let element = String(signature.dropFirst())
            for e in elements where e.signature != element {
                throw .typeMismatch(expected: element, found: e.signature)
            }
            try appendContainer(&iter, BusType.array, element, elements)
            return
        case let .dictionary(signature, entries):
            let pairs = entries.map { BusValue.structure([$0.key, $0.value]) }
            let element = String(signature.dropFirst())
            for entry in entries where "{" + entry.key.signature + entry.value.signature + "}" != element {
                throw .typeMismatch(expected: element, found: "{" + entry.key.signature + entry.value.signature + "}")
            }
            try appendContainer(&iter, BusType.array, element, pairs, entryType: BusType.dictEntry)
            return
        }
        if !ok { throw .outOfMemory }
    }

    private static func readAll(_ iter: inout DBusMessageIter) throws(BusError) -> [BusValue] {
        var values = [BusValue]()
        while dbus_message_iter_get_arg_type(&iter) != BusType.invalid {
            values.append(try read(&iter))
            dbus_message_iter_next(&iter)
        }
        return values
    }

    private static func basic<T>(_ iter: inout DBusMessageIter, _ initial: T) -> T {
        var value = initial
        withUnsafeMutablePointer(to: &value) { dbus_message_iter_get_basic(&iter, $0) }
        return value
    }

    private static func text(_ iter: inout DBusMessageIter) throws(BusError) -> String {
        var pointer: UnsafePointer<CChar>?
        withUnsafeMutablePointer(to: &pointer) { dbus_message_iter_get_basic(&iter, $0) }
        guard let pointer else { throw .typeMismatch(expected: "s", found: "null") }
        return String(cString: pointer)
    }

    /// The full signature of the value under the iterator (e.g. `aa{qv}`).
    private static func currentSignature(_ iter: inout DBusMessageIter) -> String {
        guard let raw = dbus_message_iter_get_signature(&iter) else { return "?" }
        defer { dbus_free(raw) }
        return String(cString: raw)
    }

    private static func appendBasic<T>(_ iter: inout DBusMessageIter, _ type: Int32, _ value: T) -> Bool {
        var copy = value
        return withUnsafePointer(to: &copy) { dbus_message_iter_append_basic(&iter, type, $0) } != 0
    }

    private static func appendText(_ iter: inout DBusMessageIter, _ type: Int32, _ text: String) -> Bool {
        text.withCString { chars in
            var pointer: UnsafePointer<CChar>? = chars
            return withUnsafePointer(to: &pointer) { dbus_message_iter_append_basic(&iter, type, $0) } != 0
        }
    }

    /// Opens a container, appends its members (dictionary entries become `entryType` containers
    /// holding key and value), and closes it; abandons it on failure so the message stays consistent.
    private static func appendContainer(
        _ iter: inout DBusMessageIter, _ type: Int32, _ signature: String?, _ members: [BusValue],
        entryType: Int32? = nil
    ) throws(BusError) {
        var sub = DBusMessageIter()
        let opened: Bool = if let signature {
            signature.withCString { dbus_message_iter_open_container(&iter, type, $0, &sub) } != 0
        } else {
            dbus_message_iter_open_container(&iter, type, nil, &sub) != 0
        }
        guard opened else { throw .outOfMemory }
        do {
            for member in members {
                if let entryType, case let .structure(pair) = member {
                    try appendContainer(&sub, entryType, nil, pair)
                } else {
                    try append(member, to: &sub)
                }
            }
        } catch {
            dbus_message_iter_abandon_container(&iter, &sub)
            throw error
        }
        guard dbus_message_iter_close_container(&iter, &sub) != 0 else { throw .outOfMemory }
    }
}
