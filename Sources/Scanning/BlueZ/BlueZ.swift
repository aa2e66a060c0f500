import DBus

/// BlueZ's D-Bus names (see bluez/doc/org.bluez.Adapter.rst and org.bluez.Device.rst).
enum BlueZ {
    static let service = "org.bluez"
    static let adapterInterface = "org.bluez.Adapter1"
    static let deviceInterface = "org.bluez.Device1"
    static let inProgress = "org.bluez.Error.InProgress"
    static let notReady = "org.bluez.Error.NotReady"
    /// Refusals of `StartDiscovery` that pass: retried with back-off while the adapter stays.
    /// (BlueZ answers a kernel's Busy with InProgress.)
    static let transientRefusals: Set<String> = [
        inProgress, "org.bluez.Error.Busy", "org.bluez.Error.Failed", BusError.noReply,
        "org.freedesktop.DBus.Error.Timeout", "org.freedesktop.DBus.Error.TimedOut",
    ]

    static let objectManager = "org.freedesktop.DBus.ObjectManager"
    static let properties = "org.freedesktop.DBus.Properties"
    static let bus = "org.freedesktop.DBus"
    static let busPath = "/org/freedesktop/DBus"
    static let local = "org.freedesktop.DBus.Local"

    /// `SetDiscoveryFilter` argument: LE only; DuplicateData so every advertisement re-sends
    /// ManufacturerData; an RSSI floor turns off BlueZ's 8 dB RSSI change threshold.
    static let discoveryFilter = BusValue.properties([
        ("Transport", .string("le")),
        ("DuplicateData", .boolean(true)),
        ("RSSI", .int16(-127)),
    ])

    /// Signals the scanner subscribes to. NameOwnerChanged tells when bluetoothd leaves or returns.
    static let matchRules = [
        "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='org.bluez'",
        "type='signal',sender='org.bluez',interface='org.freedesktop.DBus.ObjectManager',path='/'",
        "type='signal',sender='org.bluez',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',path_namespace='/org/bluez'",
    ]
}
