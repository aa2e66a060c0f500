import CDBus

/// libFuzzer entry: any bytes as one marshalled D-Bus message (as the bus delivers it); libdbus
/// validates the wire format, then our codec turns the body into value trees.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzDBusMessage(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, size > 0, size < Int(Int32.max) else { return 0 }
    var error = DBusError()
    dbus_error_init(&error)
    defer { dbus_error_free(&error) }
    let raw = data.withMemoryRebound(to: CChar.self, capacity: size) { dbus_message_demarshal($0, Int32(size), &error) }
    guard let raw else { return 0 }
    let message = BusMessage(owning: raw)
    _ = (message.path, message.interface, message.member, message.sender, message.isSignal)
    _ = try? message.arguments()
    return 0
}
