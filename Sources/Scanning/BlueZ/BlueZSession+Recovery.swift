import DBus
import Logging

/// A failed BlueZ call sorted into "wait and retry" or fatal, and a bluetoothd that died with nothing to restart it.
extension BlueZSession {
    /// Sorts a failed BlueZ call into "wait and retry" or fatal.
    func recover(from error: BusError, adapter: String?) throws(DBusScannerError) {
        switch error.name {
        case BusError.nameHasNoOwner, BusError.serviceUnknown:
            wait(.bluezMissing)
            considerStartingBluetoothd()
        case BusError.accessDenied:
            throw .accessDenied(error)
        case BlueZ.notReady:
            wait(.adapterOff(adapter ?? "(default)"))
        default:
            if case .disconnected = error { return lostBus() }
            wait(.refused(error.description))
        }
    }

    /// bluetoothd gone for a while: if it crashed and nothing restarts it (stock Debian's unit has
    /// `Restart=no`), ask D-Bus to start it again; never after `systemctl stop bluetooth`.
    func considerStartingBluetoothd() {
        guard configuration.activatesBluetoothd, let connection else { return }
        bluetoothd.missing(now: elapsed())
        guard bluetoothd.isDue(now: elapsed()) else { return }
        let unit = BluetoothUnit.read(connection, timeoutMilliseconds: callTimeout)
        let decision = bluetoothd.decide(unit, now: elapsed())
        switch decision {
        case .wait:
            if bluetoothd.situation != toldSituation {
                toldSituation = bluetoothd.situation
                logger.notice("bluetoothd is still gone; not starting it: \(bluetoothd.situation)")
            }
        case .activate:
            do {
                _ = try connection.call(
                    BlueZ.bus, BlueZ.busPath, BlueZ.bus, "StartServiceByName", [.string(BlueZ.service), .uint32(0)],
                    timeoutMilliseconds: milliseconds(configuration.activationTimeout)
                )
                bluetoothd.activated(error: nil)
                logger.warning("bluetoothd had died and nothing restarted it: asked D-Bus to start it (org.bluez activation); install the bluetooth.service drop-in of the sentinel package so systemd restarts it",
                               metadata: ["unit": "\(unit)"])
            } catch {
                bluetoothd.activated(error: "\(error)")
                logger.warning("bluetoothd is gone and could not be started through D-Bus: start it with systemctl start bluetooth",
                               metadata: ["unit": "\(unit)", "error": "\(error)"])
            }
        }
    }
}
