import CDBus

/// A private libdbus connection. Every call blocks the calling thread (bounded by a timeout), so a
/// connection lives on one dedicated thread and never on Swift's cooperative pool.
public final class BusConnection {
    private let raw: OpaquePointer

    private init(raw: OpaquePointer) {
        self.raw = raw
        // libdbus's default for bus connections is to exit the process when the bus goes away.
        dbus_connection_set_exit_on_disconnect(raw, 0)
    }

    deinit {
        dbus_connection_close(raw)
        dbus_connection_unref(raw)
    }

    /// Connects to the bus at `address`, or to the system bus when nil (libdbus honours
    /// `DBUS_SYSTEM_BUS_ADDRESS`, else uses the standard socket).
    public static func open(address: String?) throws(BusError) -> BusConnection {
        if let problem = bikebeacon_dbus_load() { throw .libraryUnavailable(String(cString: problem)) }
        _ = dbus_threads_init_default()
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        guard let address else {
            guard let raw = dbus_bus_get_private(DBUS_BUS_SYSTEM, &error) else { throw failure(error) }
            return BusConnection(raw: raw)
        }
        guard let raw = dbus_connection_open_private(address, &error) else { throw failure(error) }
        let connection = BusConnection(raw: raw)
        guard dbus_bus_register(raw, &error) != 0 else { throw failure(error) }
        return connection
    }

    public var isConnected: Bool { dbus_connection_get_is_connected(raw) != 0 }

    /// Calls a method and waits for its reply; an error reply is thrown with its D-Bus error name.
    public func call(
        _ destination: String, _ path: String, _ interface: String, _ member: String,
        _ arguments: [BusValue] = [], timeoutMilliseconds: Int32
    ) throws(BusError) -> [BusValue] {
        let message = try BusMessage.methodCall(destination: destination, path: path, interface: interface, member: member)
        try message.append(arguments)
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        guard let reply = dbus_connection_send_with_reply_and_block(raw, message.raw, timeoutMilliseconds, &error) else {
            throw Self.failure(error)
        }
        return try BusMessage(owning: reply).arguments()
    }

    /// Sends a method call without waiting for (or wanting) a reply.
    public func send(
        _ destination: String, _ path: String, _ interface: String, _ member: String, _ arguments: [BusValue] = []
    ) throws(BusError) {
        let message = try BusMessage.methodCall(destination: destination, path: path, interface: interface, member: member)
        try message.append(arguments)
        dbus_message_set_no_reply(message.raw, 1)
        guard dbus_connection_send(raw, message.raw, nil) != 0 else { throw .outOfMemory }
    }

    /// Subscribes to signals matching a match rule (waits for the bus to confirm).
    public func addMatch(_ rule: String) throws(BusError) {
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        dbus_bus_add_match(raw, rule, &error)
        if dbus_error_is_set(&error) != 0 { throw Self.failure(error) }
    }

    /// Moves bytes in and out for at most `timeoutMilliseconds`; false once the connection is closed.
    public func readWrite(timeoutMilliseconds: Int32) -> Bool {
        dbus_connection_read_write(raw, timeoutMilliseconds) != 0
    }

    /// The next received message, in arrival order (including signals queued during blocking calls).
    public func popMessage() -> BusMessage? {
        dbus_connection_pop_message(raw).map { BusMessage(owning: $0) }
    }

    /// Writes out anything queued (best effort, e.g. before closing).
    public func flush() {
        dbus_connection_flush(raw)
    }

    private static func failure(_ error: CDBus.DBusError) -> BusError {
        let name = error.name.map { String(cString: $0) } ?? "org.freedesktop.DBus.Error.Failed"
        let message = error.message.map { String(cString: $0) } ?? ""
        if name == "org.freedesktop.DBus.Error.NoMemory" { return .outOfMemory }
        return .remote(name: name, message: message)
    }
}
