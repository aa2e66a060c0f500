#if canImport(Glibc)
import Glibc
#endif

/// Why raw HCI scanning failed, phrased as what the operator can do about it.
public enum HCIError: Error, Equatable, Sendable, CustomStringConvertible {
    case noKernelSupport
    case invalidAdapterName(String)
    case noSuchAdapter(String)
    case adapterDown(String)
    case adapterGone(String)
    case permissionDenied(adapter: String, operation: String)
    case controllerRejected(adapter: String, command: String, status: UInt8)
    case timedOut(adapter: String, command: String)
    case system(adapter: String, operation: String, errno: Int32, message: String)

    /// Maps the errno a libbluetooth or socket call left behind.
    public static func from(errno code: Int32, adapter: String, operation: String) -> HCIError {
        switch code {
        case EAFNOSUPPORT, EPROTONOSUPPORT: .noKernelSupport
        case EPERM, EACCES: .permissionDenied(adapter: adapter, operation: operation)
        case ENODEV: .noSuchAdapter(adapter)
        case ENETDOWN: .adapterDown(adapter)
        case ETIMEDOUT: .timedOut(adapter: adapter, command: operation)
        default: .system(adapter: adapter, operation: operation, errno: code, message: String(cString: strerror(code)))
        }
    }

    public var description: String {
        switch self {
        case .noKernelSupport:
            "this kernel has no Bluetooth support (AF_BLUETOOTH sockets are not available). "
                + "Load it with `sudo modprobe bluetooth` (and the controller's driver, e.g. btusb); "
                + "containers need the host's network namespace (--net=host). "
                + "Captures can still be replayed with `bikebeacon replay`."
        case let .invalidAdapterName(name):
            "\"\(name)\" is not an adapter name: use the kernel's name such as hci0 (see `hciconfig` or `bluetoothctl list`)"
        case let .noSuchAdapter(name):
            "there is no Bluetooth adapter \(name): list adapters with `hciconfig -a` or `bluetoothctl list` and pass --adapter"
        case let .adapterDown(name):
            "adapter \(name) is down: bring it up with `sudo hciconfig \(name) up` or `bluetoothctl power on`"
        case let .adapterGone(name):
            "adapter \(name) went away or was powered off while scanning; check `hciconfig \(name)` and start again"
        case let .permissionDenied(adapter, operation):
            "permission denied for \(operation) on \(adapter): raw HCI scanning needs the capabilities "
                + "CAP_NET_RAW and CAP_NET_ADMIN. Grant them once with "
                + "`sudo setcap cap_net_raw,cap_net_admin+eip $(which bikebeacon)`, run as root, or under systemd set "
                + "`AmbientCapabilities=CAP_NET_RAW CAP_NET_ADMIN`. The default D-Bus backend needs neither."
        case let .controllerRejected(adapter, command, status):
            "the controller of \(adapter) rejected \(command) with status 0x\(hex(status))"
                + (status == 0x0C
                    ? " (Command Disallowed): another program, usually bluetoothd, is scanning on it; stop that scan (`bluetoothctl scan off`) or use the D-Bus backend"
                    : "; reset it with `sudo hciconfig \(adapter) reset` and try again")
        case let .timedOut(adapter, command):
            "the controller of \(adapter) did not answer \(command) in time; reset it with `sudo hciconfig \(adapter) reset`"
        case let .system(adapter, operation, code, message):
            "\(operation) on \(adapter) failed: \(message) (errno \(code))"
        }
    }

    private func hex(_ value: UInt8) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return digits.count == 1 ? "0" + digits : digits
    }
}
