#if canImport(Glibc)
import Glibc
#endif
import Beacon
import DBus
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging

/// One scanning run, confined to its own thread: owns the bus connection, follows bluetoothd and
/// the adapter through their comings and goings, and feeds iBeacon reports into the stream.
///
/// Everything here blocks (libdbus), which is why it never runs on Swift's cooperative pool. The
/// loop wakes at least every `pollMilliseconds` to notice a stop request and run the timers.
final class BlueZSession {
    /// Why the session is not scanning; the operator is told once per situation.
    private enum Wait: Equatable {
        case starting
        case noBus
        case bluezMissing
        case bluezGone
        case adapterMissing(requested: String?, available: [String])
        case adapterOff(String)
        case adapterRemoved(String)
        case refused(String)
    }

    private enum Phase: Equatable {
        case waiting(Wait)
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

    private static let pollMilliseconds: Int32 = 100
    private static let stopTimeoutMilliseconds: Int32 = 1000

    private let configuration: DBusScannerConfiguration
    private let logger: Logger
    private let clock: @Sendable () -> Double
    private let shared: ScanShared
    /// Set once discovery first started, so later starts count as restarts.
    private var hasScanned = false
    private let runID: Int
    private let continuation: AsyncThrowingStream<[Advertisement], any Error>.Continuation
    private let monotonic = ContinuousClock()
    private let started: ContinuousClock.Instant

    private var connection: BusConnection?
    private var bluezOwner: String?
    private var phase = Phase.waiting(.starting) {
        didSet { shared.update { phase.radio(&$0) } }
    }
    private var nextAttempt: ContinuousClock.Instant?
    private var lastActivity: ContinuousClock.Instant
    private var devices = DeviceTable()
    /// iBeacon reports of the current dispatch, handed over together.
    private var batch: [Advertisement] = []
    private var removals = RemovalPolicy()
    private var keeper: DiscoveryKeeper
    /// Our own power cycle's Powered=false signal is not the operator switching the adapter off.
    private var cyclingPower = false
    /// What the scanner last told `shared` it waits for (nil: listening), to tell it only changes.
    private var reportedWait: String?? = .none
    private var bluetoothd: BluetoothdWatch
    /// The last bluetoothd situation the operator was told of, so a long wait is one line.
    private var toldSituation: String?

    init(
        configuration: DBusScannerConfiguration, logger: Logger, clock: @escaping @Sendable () -> Double,
        shared: ScanShared, runID: Int, continuation: AsyncThrowingStream<[Advertisement], any Error>.Continuation
    ) {
        self.configuration = configuration
        self.logger = logger
        self.clock = clock
        self.shared = shared
        self.runID = runID
        self.continuation = continuation
        started = monotonic.now
        lastActivity = started
        keeper = DiscoveryKeeper(configuration: configuration.discovery)
        bluetoothd = BluetoothdWatch(activationDelay: seconds(configuration.activationDelay))
    }

    /// Runs until the stream's consumer goes away or a fatal error (thrown to the consumer, who
    /// reports it); then stops discovery.
    func run() {
        defer { shared.end(runID) }
        var failure: DBusScannerError?
        do {
            try connect()
            nextAttempt = monotonic.now
            while !shared.isStopRequested(runID) {
                try step()
            }
        } catch {
            failure = error
        }
        flush()
        stopDiscovery()
        connection = nil
        if let failure {
            continuation.finish(throwing: failure)
        } else {
            continuation.finish()
        }
    }

    // MARK: - The loop

    private func step() throws(DBusScannerError) {
        defer { reportListening() }
        guard connection != nil else {
            if isDue(nextAttempt) { reconnect() }
            if connection == nil { usleep(UInt32(Self.pollMilliseconds) * 1000) }
            return
        }
        while let message = connection?.popMessage() {
            try handle(message)
            if batch.count >= ScanBatch.limit { flush() }
        }
        flush()
        guard let connection, connection.isConnected else {
            lostBus()
            return
        }
        switch phase {
        case .waiting(.bluezMissing), .waiting(.bluezGone):
            considerStartingBluetoothd()
            if isDue(nextAttempt) { try setUp() }
        case .waiting:
            if isDue(nextAttempt) { try setUp() }
        case let .scanning(adapter):
            if monotonic.now - lastActivity >= configuration.watchdogInterval { restartDiscovery(on: adapter) }
            try keepDiscovering(on: adapter)
        }
        if !connection.readWrite(timeoutMilliseconds: Self.pollMilliseconds) { lostBus() }
    }

    private func connect() throws(DBusScannerError) {
        do {
            let connection = try BusConnection.open(address: configuration.busAddress)
            for rule in BlueZ.matchRules { try connection.addMatch(rule) }
            self.connection = connection
        } catch {
            throw .cannotConnect(error)
        }
    }

    private func reconnect() {
        do {
            try connect()
            logger.info("reconnected to the system D-Bus: looking for bluetoothd again")
            phase = .waiting(.starting)
            nextAttempt = monotonic.now
        } catch {
            nextAttempt = monotonic.now + configuration.retryInterval
        }
    }

    private func lostBus() {
        guard connection != nil else { return }
        connection = nil
        bluezOwner = nil
        devices.removeAll()
        wait(.noBus)
    }

    // MARK: - Finding the adapter and scanning

    /// Looks for bluetoothd and the adapter; starts discovery when both are there.
    private func setUp() throws(DBusScannerError) {
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
    private func keepDiscovering(on adapter: Adapter) throws(DBusScannerError) {
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
    private func restartDiscovery(on adapter: Adapter) {
        logger.warning(
            "no advertisements on \(adapter.name) for \(configuration.watchdogInterval): restarting discovery (BlueZ scans can stall silently)"
        )
        lastActivity = monotonic.now
        keeper.restart(now: elapsed())
    }

    /// Tells `shared` when the radio starts or stops listening, and what it waits for.
    private func reportListening() {
        let waiting = waitingFor()
        guard reportedWait != .some(waiting) else { return }
        reportedWait = .some(waiting)
        shared.setListening(waiting == nil, waitingFor: waiting)
    }

    /// What the session waits for before it hears anything, for `bikebeacon status`; nil while it listens.
    private func waitingFor() -> String? {
        switch phase {
        case .waiting(.starting):
            return "BlueZ: looking for bluetoothd and the adapter"
        case .waiting(.noBus):
            return "the system D-Bus (systemctl status dbus)"
        case .waiting(.bluezMissing), .waiting(.bluezGone):
            return "bluetoothd: " + bluetoothd.situation
        case let .waiting(.adapterMissing(requested, _)):
            return "the Bluetooth adapter \(requested ?? "(any)") (bluetoothctl list; rfkill list)"
        case let .waiting(.adapterOff(name)):
            return "\(name) to be powered on (bluetoothctl power on; rfkill list)"
        case let .waiting(.adapterRemoved(name)):
            return "\(name) to come back (check the USB dongle)"
        case let .waiting(.refused(detail)):
            return "BlueZ to start scanning (\(detail))"
        case let .scanning(adapter):
            guard !keeper.isListening else { return nil }
            if let refusal = keeper.refusal { return "discovery on \(adapter.name): BlueZ refused it (\(refusal)); retrying" }
            return "discovery on \(adapter.name) to run (Adapter1.Discovering is off)"
        }
    }

    /// Stops our discovery session when leaving (best effort: BlueZ also ends it when we disconnect).
    private func stopDiscovery() {
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

    /// Sorts a failed BlueZ call into "wait and retry" or fatal.
    private func recover(from error: BusError, adapter: String?) throws(DBusScannerError) {
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
    private func considerStartingBluetoothd() {
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

    /// Enters a waiting state, telling the operator once per situation.
    private func wait(_ reason: Wait) {
        devices.removeAll()
        if case let .waiting(current) = phase, Self.isSameSituation(current, reason) { return }
        phase = .waiting(reason)
        nextAttempt = monotonic.now + configuration.retryInterval
        let retry = "\(configuration.retryInterval)"
        switch reason {
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

    /// A retry finding the same trouble under its generic name is not news.
    private static func isSameSituation(_ current: Wait, _ new: Wait) -> Bool {
        switch (current, new) {
        case (.bluezGone, .bluezMissing), (.adapterRemoved, .adapterMissing): true
        default: current == new
        }
    }

    // MARK: - Signals

    private func handle(_ message: BusMessage) throws(DBusScannerError) {
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

    // MARK: - Devices

    private func handleDevice(_ path: String, _ properties: [String: BusValue], invalidated: [String]) {
        devices.invalidate(invalidated, path: path)
        let update = DeviceUpdate(properties: properties)
        let report = devices.apply(update, path: path, time: clock())
        switch report {
        case .none:
            if !update.problems.isEmpty {
                logger.debug("skipping unreadable device properties", metadata: ["path": "\(path)", "problems": "\(update.problems.joined(separator: "; "))"])
            }
        case let .iBeacon(advertisement):
            shared.update { $0.reports += 1; $0.iBeacons += 1 }
            lastActivity = monotonic.now
            batch.append(advertisement)
        case let .other(reason):
            shared.update { $0.reports += 1; $0.otherAdvertisements += 1 }
            lastActivity = monotonic.now
            forget(path, reason: reason)
        case let .malformed(problems):
            shared.update { $0.reports += 1; $0.errors += 1 }
            lastActivity = monotonic.now
            logger.debug("skipping a malformed advertisement", metadata: ["path": "\(path)", "problems": "\(problems.joined(separator: "; "))"])
        }
    }

    /// Hands the reports gathered so far to the stream: one await for the consumer per dispatch.
    private func flush() {
        guard !batch.isEmpty else { return }
        continuation.yield(batch)
        batch.removeAll(keepingCapacity: true)
    }

    /// Asks BlueZ to drop a device that is not an iBeacon, so its cache stays small.
    private func forget(_ path: String, reason: String) {
        guard configuration.removesIgnoredDevices, case let .scanning(adapter) = phase, let connection,
              removals.allow(path, now: elapsed())
        else { return }
        logger.debug("asking BlueZ to forget a device that is not an iBeacon", metadata: ["path": "\(path)", "reason": "\(reason)"])
        do {
            try connection.send(BlueZ.service, adapter.path, BlueZ.adapterInterface, "RemoveDevice", [.objectPath(path)])
        } catch {
            logger.debug("RemoveDevice not sent", metadata: ["path": "\(path)", "error": "\(error)"])
        }
    }

    // MARK: - Helpers

    private var callTimeout: Int32 { milliseconds(configuration.callTimeout) }

    /// Seconds since the session began, on the monotonic clock: the keepers' timeline.
    private func elapsed() -> Double { seconds(started.duration(to: monotonic.now)) }

    private func isDue(_ instant: ContinuousClock.Instant?) -> Bool {
        instant.map { monotonic.now >= $0 } ?? false
    }

    private func argument(_ arguments: [BusValue], _ index: Int, _ member: String) throws(BusError) -> BusValue {
        guard arguments.indices.contains(index) else { throw .missingArgument(index: index, member: member) }
        return arguments[index]
    }
}
