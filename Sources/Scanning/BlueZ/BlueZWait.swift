import Logging

/// Why a BlueZ session is not scanning. Each is told to the operator once per situation, with what to do,
/// and named in `bikebeacon status` while it lasts.
enum BlueZWait: Equatable {
    case starting
    case noBus
    case bluezMissing
    case bluezGone
    case adapterMissing(requested: String?, available: [String])
    case adapterOff(String)
    case adapterRemoved(String)
    case refused(String)

    /// A retry finding the same trouble under its generic name is not news.
    func isSameSituation(as new: BlueZWait) -> Bool {
        switch (self, new) {
        case (.bluezGone, .bluezMissing), (.adapterRemoved, .adapterMissing): true
        default: self == new
        }
    }

    /// What the session waits for, for `bikebeacon status`; `bluetoothd`: the watch's account of it.
    func waitingFor(bluetoothd: String) -> String {
        switch self {
        case .starting:
            "BlueZ: looking for bluetoothd and the adapter"
        case .noBus:
            "the system D-Bus (systemctl status dbus)"
        case .bluezMissing, .bluezGone:
            "bluetoothd: " + bluetoothd
        case let .adapterMissing(requested, _):
            "the Bluetooth adapter \(requested ?? "(any)") (bluetoothctl list; rfkill list)"
        case let .adapterOff(name):
            "\(name) to be powered on (bluetoothctl power on; rfkill list)"
        case let .adapterRemoved(name):
            "\(name) to come back (check the USB dongle)"
        case let .refused(detail):
            "BlueZ to start scanning (\(detail))"
        }
    }

    /// The operator's line on entering this wait; `retry`: how often the session looks again.
    func announce(to logger: Logger, retry: String) {
        switch self {
        case .starting:
            break
        case .noBus:
            logger.warning("lost the connection to the system D-Bus: reconnecting (is dbus running? systemctl status dbus)", metadata: ["retryEvery": "\(retry)"])
        case .bluezMissing:
            logger.warning("bluetoothd is not running (nobody owns org.bluez on the system bus): start it with systemctl start bluetooth; waiting for it")
        case .bluezGone:
            logger.warning("bluetoothd left the system bus (stopped or crashed): scanning paused until it returns; check systemctl status bluetooth")
        case let .adapterMissing(requested?, available):
            let others = available.isEmpty ? "no adapters at all" : "available: " + available.joined(separator: ", ")
            logger.warning("Bluetooth adapter not found: waiting for it; check bluetoothctl list or pass another --adapter", metadata: ["adapter": "\(requested)", "available": "\(others)"])
        case .adapterMissing(nil, _):
            logger.warning("no Bluetooth adapter found: plug one in or check rfkill list and bluetoothctl list; waiting for one")
        case let .adapterOff(name):
            logger.warning("Bluetooth adapter is powered off: power it on with bluetoothctl power on (check rfkill list); waiting", metadata: ["adapter": "\(name)"])
        case let .adapterRemoved(name):
            logger.warning("Bluetooth adapter was removed: scanning paused until it returns; check the USB dongle or rfkill list", metadata: ["adapter": "\(name)"])
        case let .refused(detail):
            logger.warning("BlueZ did not start scanning: retrying", metadata: ["reason": "\(detail)", "retryEvery": "\(retry)"])
        }
    }
}

/// A BlueZ session's phase: waiting (and why) or scanning on an adapter.
enum BlueZPhase: Equatable {
    case waiting(BlueZWait)
    case scanning(Adapter)

    /// The radio's state as the heartbeat reports it.
    func radio(_ counts: inout ScanCounts) {
        switch self {
        case .scanning:
            // Whether discovery really runs is the keeper's to say (`ScanShared.setListening`).
            (counts.adapterPresent, counts.adapterPowered) = (true, true)
        case .waiting(.adapterMissing), .waiting(.adapterRemoved):
            (counts.adapterPresent, counts.adapterPowered, counts.scanning) = (false, nil, false)
        case .waiting(.adapterOff):
            (counts.adapterPresent, counts.adapterPowered, counts.scanning) = (true, false, false)
        case .waiting:
            (counts.adapterPresent, counts.adapterPowered, counts.scanning) = (nil, nil, false)
        }
    }
}
