import Logging
import Scanning

extension ScanCommand.Backend {
    /// The live scanner this backend names, on `adapter` (nil: the first powered one for D-Bus, hci0 for HCI).
    func scanner(adapter: String?, watchdog: Double, logger: Logger) -> any Scanning.Scanner {
        switch self {
        case .dbus:
            let configuration = DBusScannerConfiguration(adapter: adapter, watchdogInterval: .milliseconds(Int(watchdog * 1000)))
            return DBusScanner(configuration: configuration, logger: logger)
        case .hci:
            return HCIScanner(adapter: adapter ?? "hci0", logger: logger)
        }
    }

    /// How the range screen names the source.
    func sourceName(adapter: String?) -> String {
        switch self {
        case .dbus: "BlueZ " + (adapter ?? "first adapter")
        case .hci: "HCI " + (adapter ?? "hci0")
        }
    }
}
