import DBus

/// What systemd says of `bluetooth.service`, read over the system bus.
enum BluetoothUnit: Equatable, Sendable, CustomStringConvertible {
    /// The unit's `ActiveState` and its service's `Result`.
    case state(active: String, result: String)
    /// systemd could not be asked, with why.
    case unknown(String)

    var description: String {
        switch self {
        case let .state(active, result): "bluetooth.service \(active) (result: \(result))"
        case let .unknown(reason): reason
        }
    }

    static let systemd = "org.freedesktop.systemd1"
    static let manager = "org.freedesktop.systemd1.Manager"

    /// Asks systemd; never throws, since a machine without systemd is an answer too.
    static func read(_ connection: BusConnection, timeoutMilliseconds: Int32) -> BluetoothUnit {
        func property(_ path: String, _ interface: String, _ name: String) throws(BusError) -> String {
            let reply = try connection.call(systemd, path, BlueZ.properties, "Get", [.string(interface), .string(name)],
                                            timeoutMilliseconds: timeoutMilliseconds)
            guard let value = reply.first else { throw .missingArgument(index: 0, member: "Get") }
            return try value.variant().string()
        }
        do {
            let reply = try connection.call(systemd, "/org/freedesktop/systemd1", manager, "GetUnit", [.string("bluetooth.service")],
                                            timeoutMilliseconds: timeoutMilliseconds)
            guard let path = try reply.first?.objectPath() else { return .unknown("systemd's GetUnit gave no unit") }
            return .state(active: try property(path, "org.freedesktop.systemd1.Unit", "ActiveState"),
                          result: try property(path, "org.freedesktop.systemd1.Service", "Result"))
        } catch where error.name == "org.freedesktop.systemd1.NoSuchUnit" {
            return .unknown("systemd has no bluetooth.service loaded")
        } catch where error.name == BusError.serviceUnknown || error.name == BusError.nameHasNoOwner {
            return .unknown("no systemd on this bus")
        } catch {
            return .unknown("systemd did not say how bluetooth.service is (\(error))")
        }
    }
}

/// Decides whether to ask D-Bus to start bluetoothd while it is gone.
///
/// Stock Debian's `bluetooth.service` has `Restart=no`: a bluetoothd that crashes stays dead, and
/// a sentinel that only waits for it scans nothing for good. But an operator's `systemctl stop
/// bluetooth` is a decision to respect. systemd tells the two apart: a crash leaves the unit
/// `failed`, a stop leaves it `inactive` with the result `success`, and a restart on the way is
/// `activating`. Pure: times are seconds on a monotonic clock.
struct BluetoothdWatch: Sendable {
    enum Decision: Equatable, Sendable {
        case wait
        case activate
    }

    /// Gone this long before systemd is asked (it needs a moment to mark a crash).
    let activationDelay: Double
    /// Between two looks while it stays gone.
    let interval: Double
    private var missingSince: Double?
    private var nextLook: Double?
    /// The situation in a phrase, for the log and `bikebeacon status`.
    private(set) var situation = "org.bluez is not on the system bus (systemctl status bluetooth)"

    init(activationDelay: Double = 2, interval: Double = 30) {
        self.activationDelay = activationDelay
        self.interval = interval
    }

    mutating func found() {
        self = BluetoothdWatch(activationDelay: activationDelay, interval: interval)
    }

    mutating func missing(now: Double) {
        guard missingSince == nil else { return }
        missingSince = now
        nextLook = now + activationDelay
    }

    func isDue(now: Double) -> Bool { nextLook.map { now >= $0 } ?? false }

    mutating func decide(_ unit: BluetoothUnit, now: Double) -> Decision {
        nextLook = now + interval
        switch unit {
        case let .state("failed", result):
            situation = "bluetooth.service failed (\(result)) and systemd does not restart it"
            return .activate
        case .state("inactive", "success"):
            situation = "bluetooth.service was stopped; start it with systemctl start bluetooth"
            return .wait
        case let .state("inactive", result):
            situation = "bluetooth.service ended (\(result)) and systemd does not restart it"
            return .activate
        case let .state(active, _):
            situation = "bluetooth.service is \(active); waiting for it"
            return .wait
        case let .unknown(reason):
            situation = "org.bluez is not on the system bus (\(reason))"
            return .activate
        }
    }

    mutating func activated(error: String?) {
        situation += error.map { "; D-Bus could not start it: \($0)" } ?? "; asked D-Bus to start it"
    }
}
