import DBus
import Logging

/// BlueZ's signals: bluetoothd coming and going, adapters and devices added and removed, properties changed.
extension BlueZSession {
    func handle(_ message: BusMessage) throws(DBusScannerError) {
        guard message.isSignal else { return }
        if message.isSignal(interface: BlueZ.local, member: "Disconnected") { return lostBus() }
        do {
            if message.isSignal(interface: BlueZ.bus, member: "NameOwnerChanged") {
                return try nameOwnerChanged(message.arguments())
            }
            guard let sender = message.sender, sender == bluezOwner else { return }
            if message.isSignal(interface: BlueZ.objectManager, member: "InterfacesAdded") {
                try interfacesAdded(message.arguments())
            } else if message.isSignal(interface: BlueZ.objectManager, member: "InterfacesRemoved") {
                try interfacesRemoved(message.arguments())
            } else if message.isSignal(interface: BlueZ.properties, member: "PropertiesChanged"), let path = message.path {
                try propertiesChanged(path: path, message.arguments())
            }
        } catch {
            logger.debug("skipping an unreadable signal", metadata: ["member": "\(message.member ?? "?")", "path": "\(message.path ?? "?")", "error": "\(error)"])
        }
    }

    private func nameOwnerChanged(_ arguments: [BusValue]) throws(BusError) {
        guard try argument(arguments, 0, "NameOwnerChanged").string() == BlueZ.service else { return }
        let newOwner = try argument(arguments, 2, "NameOwnerChanged").string()
        if newOwner.isEmpty {
            bluezOwner = nil
            removals.forgetAll()
            wait(.bluezGone)
            bluetoothd.missing(now: elapsed())
            // The retries look again every retryInterval; a crash with nothing to restart it is
            // noticed there (considerStartingBluetoothd).
            return
        }
        bluezOwner = newOwner
        bluetoothd.found()
        logger.info("bluetoothd is on the system bus: looking for the adapter")
        phase = .waiting(.starting)
        nextAttempt = monotonic.now
    }

    private func interfacesAdded(_ arguments: [BusValue]) throws(BusError) {
        let path = try argument(arguments, 0, "InterfacesAdded").objectPath()
        let interfaces = try ManagedObjects.interfaces(argument(arguments, 1, "InterfacesAdded"))
        switch phase {
        case .waiting:
            if interfaces[BlueZ.adapterInterface] != nil { nextAttempt = monotonic.now }
        case let .scanning(adapter):
            if let properties = interfaces[BlueZ.deviceInterface], path.hasPrefix(adapter.path + "/") {
                handleDevice(path, properties, invalidated: [])
            }
        }
    }

    private func interfacesRemoved(_ arguments: [BusValue]) throws(BusError) {
        let path = try argument(arguments, 0, "InterfacesRemoved").objectPath()
        let interfaces = try argument(arguments, 1, "InterfacesRemoved").array("as").map { value throws(BusError) in try value.string() }
        if interfaces.contains(BlueZ.deviceInterface) {
            devices.remove(path)
            removals.forget(path)
        }
        guard interfaces.contains(BlueZ.adapterInterface) else { return }
        switch phase {
        case let .scanning(adapter) where path == adapter.path:
            wait(.adapterRemoved(adapter.name))
        case let .waiting(.adapterOff(name)) where Adapter(path: path, powered: false).name == name:
            // BlueZ powers a controller off before it goes: the operator should hear that it went.
            wait(.adapterRemoved(name))
        default:
            break
        }
    }

    private func propertiesChanged(path: String, _ arguments: [BusValue]) throws(BusError) {
        let interface = try argument(arguments, 0, "PropertiesChanged").string()
        let changed = try argument(arguments, 1, "PropertiesChanged").propertyMap()
        let invalidated = try argument(arguments, 2, "PropertiesChanged").array("as").map { value throws(BusError) in try value.string() }
        switch (interface, phase) {
        case let (BlueZ.adapterInterface, .scanning(adapter)) where path == adapter.path:
            if let discovering = try? changed["Discovering"]?.boolean() {
                keeper.discoveringChanged(discovering, now: elapsed())
            }
            switch try? changed["Powered"]?.boolean() {
            case false? where cyclingPower:
                break
            case false?:
                wait(.adapterOff(adapter.name))
            case true?:
                cyclingPower = false
            case nil:
                break
            }
        case (BlueZ.adapterInterface, .waiting):
            if (try? changed["Powered"]?.boolean()) == true { nextAttempt = monotonic.now }
        case let (BlueZ.deviceInterface, .scanning(adapter)) where path.hasPrefix(adapter.path + "/"):
            handleDevice(path, changed, invalidated: invalidated)
        default:
            break
        }
    }
}
