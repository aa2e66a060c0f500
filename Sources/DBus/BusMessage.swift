import CDBus

/// One libdbus message, owned (unreferenced on deinit). Not thread-safe: it stays on the thread
/// that runs its connection.
public final class BusMessage {
    let raw: OpaquePointer

    /// Takes over one reference the caller owns.
    init(owning raw: OpaquePointer) {
        self.raw = raw
    }

    deinit {
        dbus_message_unref(raw)
    }

    /// A method call; fails only when libdbus rejects the names (they are compile-time constants here)
    /// or cannot allocate.
    public static func methodCall(destination: String, path: String, interface: String, member: String) throws(BusError) -> BusMessage {
        guard let raw = dbus_message_new_method_call(destination, path, interface, member) else {
            throw .outOfMemory
        }
        return BusMessage(owning: raw)
    }

    public var isSignal: Bool { dbus_message_get_type(raw) == DBUS_MESSAGE_TYPE_SIGNAL }
    public var isError: Bool { dbus_message_get_type(raw) == DBUS_MESSAGE_TYPE_ERROR }

    public var sender: String? { dbus_message_get_sender(raw).map { String(cString: $0) } }
    public var path: String? { dbus_message_get_path(raw).map { String(cString: $0) } }
    public var interface: String? { dbus_message_get_interface(raw).map { String(cString: $0) } }
    public var member: String? { dbus_message_get_member(raw).map { String(cString: $0) } }
    public var errorName: String? { dbus_message_get_error_name(raw).map { String(cString: $0) } }

    /// Whether this is the given signal.
    public func isSignal(interface: String, member: String) -> Bool {
        dbus_message_is_signal(raw, interface, member) != 0
    }

    /// The body, decoded into value trees.
    public func arguments() throws(BusError) -> [BusValue] {
        var iter = DBusMessageIter()
        guard dbus_message_iter_init(raw, &iter) != 0 else { return [] }
        var values = [BusValue]()
        while dbus_message_iter_get_arg_type(&iter) != BusType.invalid {
            values.append(try BusCodec.read(&iter))
            dbus_message_iter_next(&iter)
        }
        return values
    }

    /// Appends arguments to the body.
    public func append(_ values: [BusValue]) throws(BusError) {
        var iter = DBusMessageIter()
        dbus_message_iter_init_append(raw, &iter)
        for value in values {
            try BusCodec.append(value, to: &iter)
        }
    }

    /// The error an error reply carries.
    public func asError() -> BusError {
        let text = (try? arguments().first?.string()) ?? ""
        return .remote(name: errorName ?? "org.freedesktop.DBus.Error.Failed", message: text)
    }
}

/// D-Bus type codes (the C macros are casts, which Swift does not import).
enum BusType {
    static let invalid: Int32 = 0
    static let byte = code("y"), boolean = code("b"), int16 = code("n"), uint16 = code("q")
    static let int32 = code("i"), uint32 = code("u"), int64 = code("x"), uint64 = code("t")
    static let double = code("d"), string = code("s"), objectPath = code("o"), signature = code("g")
    static let array = code("a"), variant = code("v"), structure = code("r"), dictEntry = code("e")

    private static func code(_ c: Unicode.Scalar) -> Int32 { Int32(c.value) }
}
