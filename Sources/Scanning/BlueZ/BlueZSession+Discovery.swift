import DBus
import Logging

/// Finding the adapter, and keeping BlueZ discovering on it: started when the keeper says so, restarted by the
/// watchdog, the adapter power-cycled when a dead bluetoothd left a discovery running, stopped when leaving.
extension BlueZSession {
    /// Looks for bluetoothd and the adapter; starts discovery when both are there.
    func setUp() throws(DBusScannerError) {
        guard let connection else { return }
        nextAttempt = monotonic.now + configuration.retryInterval
        let objects: ManagedObjects
        do {
            let owner = try connection.call(
                BlueZ.bus, BlueZ.busPath, BlueZ.bus, "GetNameOwner", [.string(BlueZ.service)], timeoutMilliseconds: callTimeout
            )
            bluezOwner = try argument(owner, 0, "GetNameOwner").string()
            bluetoothd.found()
            let reply = try connection.call(
                BlueZ.service, "/", BlueZ.objectManager, "GetManagedObjects", timeoutMilliseconds: callTimeout
            )
            objects = try ManagedObjects(reply: argument(reply, 0, "GetManagedObjects"))
        } catch {
            return try recover(from: error, adapter: configuration.adapter)
        }
        switch AdapterChoice(requested: configuration.adapter, adapters: objects.adapters) {
        case let .missing(available):
            wait(.adapterMissing(requested: configuration.adapter, available: available))
        case let .poweredOff(adapter):
            wait(.adapterOff(adapter.name))
        case let .use(adapter):
            phase = .scanning(adapter)
            keeper.begin(now: elapsed(), discovering: adapter.discovering)
            lastActivity = monotonic.now
            devices.removeAll()
            removals.forgetAll()
            try keepDiscovering(on: adapter)
            guard case .scanning = phase else { return }
            for device in objects.devices(under: adapter.path) {
                handleDevice(device.path, device.properties, invalidated: [])
            }
        }
    }

    /// Starts discovery when the keeper says so, and tells it what BlueZ answered.
    func keepDiscovering(on adapter: Adapter) throws(DBusScannerError) {
        switch keeper.due(now: elapsed()) {
        case .none:
            return
        case let .start(stopFirst):
            do {
                try startDiscovery(on: adapter, stopFirst: stopFirst)
            } catch {
                try refused(error, adapter: adapter)
                return
            }
            let refusedBefore = keeper.refusal
            keeper.accepted(now: elapsed())
            if hasScanned { shared.update { $0.restarts += 1 } }
            hasScanned = true
            if let refusedBefore {
                logger.notice("BlueZ started discovery after refusing it: scanning again", metadata: ["adapter": "\(adapter.name)", "lastRefusal": "\(refusedBefore)"])
            }
            logger.info("scanning for iBeacons on the adapter through BlueZ (LE, every advertisement)", metadata: ["adapter": "\(adapter.name)"])
        case .powerCycle:
            logger.warning(
                "the controller still runs a discovery that no BlueZ client owns (left by a bluetoothd that died): powering the adapter off and on to end it",
                metadata: ["adapter": "\(adapter.name)", "refused": "\(keeper.failures) times"]
            )
            do {
                try cyclePower(adapter)
                keeper.powerCycled(now: elapsed())
            } catch {
                cyclingPower = false
                logger.warning("could not power-cycle the adapter: waiting for the old discovery to end by itself (at most about 10 s)",
                               metadata: ["adapter": "\(adapter.name)", "error": "\(error)"])
                try refused(error, adapter: adapter)
            }
        }
    }

    private func startDiscovery(on adapter: Adapter, stopFirst: Bool) throws(BusError) {
        guard let connection else { throw .disconnected }
        if stopFirst {
            // Ours may still be registered (BlueZ would answer a second start with InProgress); if not, BlueZ says so.
            _ = try? connection.call(
                BlueZ.service, adapter.path, BlueZ.adapterInterface, "StopDiscovery", timeoutMilliseconds: callTimeout
            )
        }
        _ = try connection.call(
            BlueZ.service, adapter.path, BlueZ.adapterInterface, "SetDiscoveryFilter", [BlueZ.discoveryFilter],
            timeoutMilliseconds: callTimeout
        )
        _ = try connection.call(
            BlueZ.service, adapter.path, BlueZ.adapterInterface, "StartDiscovery", timeoutMilliseconds: callTimeout
        )
    }

    /// A refused start: InProgress, Busy, Failed and timeouts pass (retried with back-off); the
    /// rest is bluetoothd or the adapter going, handled as any other call's failure.
    private func refused(_ error: BusError, adapter: Adapter) throws(DBusScannerError) {
        guard let name = error.name, BlueZ.transientRefusals.contains(name) else {
            return try recover(from: error, adapter: adapter.name)
        }
        let first = keeper.refusal == nil
        keeper.refused(name, now: elapsed())
        if first {
            logger.warning(
                "BlueZ refused to start discovery: not scanning; retrying until it starts (InProgress usually means the controller still runs a discovery of a bluetoothd that died)",
                metadata: ["adapter": "\(adapter.name)", "error": "\(error)"]
            )
        } else {
            logger.debug("discovery refused again", metadata: ["adapter": "\(adapter.name)", "error": "\(error)", "refused": "\(keeper.failures)"])
        }
    }

    /// Powers the adapter off and on: the kernel ends its discovery, and BlueZ starts clean.
    private func cyclePower(_ adapter: Adapter) throws(BusError) {
        guard let connection else { throw .disconnected }
        cyclingPower = true
        for powered in [false, true] {
            _ = try connection.call(
                BlueZ.service, adapter.path, BlueZ.properties, "Set",
                [.string(BlueZ.adapterInterface), .string("Powered"), .variant(.boolean(powered))],
                timeoutMilliseconds: callTimeout
            )
        }
    }

    /// The watchdog: BlueZ scans stall silently on many setups (theengs/gateway 99, bleak 887).
    func restartDiscovery(on adapter: Adapter) {
        logger.warning(
            "no advertisements on \(adapter.name) for \(configuration.watchdogInterval): restarting discovery (BlueZ scans can stall silently)"
        )
        lastActivity = monotonic.now
        keeper.restart(now: elapsed())
    }

    /// Stops our discovery session when leaving (best effort: BlueZ also ends it when we disconnect).
    func stopDiscovery() {
        guard case let .scanning(adapter) = phase, let connection else { return }
        do {
            _ = try connection.call(
                BlueZ.service, adapter.path, BlueZ.adapterInterface, "StopDiscovery",
                timeoutMilliseconds: Self.stopTimeoutMilliseconds
            )
            logger.info("stopped discovery", metadata: ["adapter": "\(adapter.name)"])
        } catch {
            logger.debug("StopDiscovery failed", metadata: ["adapter": "\(adapter.name)", "error": "\(error)"])
        }
    }
}
