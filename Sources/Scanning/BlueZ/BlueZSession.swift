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
///
/// Its parts, by file: the loop and its waits here; finding the adapter and keeping discovery running
/// (+Discovery); failed calls and a bluetoothd gone (+Recovery); BlueZ's signals (+Signals); the devices'
/// reports (+Devices). Only `DBusScanner` makes one and calls `run`.
final class BlueZSession {
    private static let pollMilliseconds: Int32 = 100
    static let stopTimeoutMilliseconds: Int32 = 1000

    let configuration: DBusScannerConfiguration
    let logger: Logger
    let clock: @Sendable () -> Double
    let shared: ScanShared
    /// Set once discovery first started, so later starts count as restarts.
    var hasScanned = false
    private let runID: Int
    let continuation: AsyncThrowingStream<[Advertisement], any Error>.Continuation
    let monotonic = ContinuousClock()
    let started: ContinuousClock.Instant

    var connection: BusConnection?
    var bluezOwner: String?
    var phase = BlueZPhase.waiting(.starting) {
        didSet { shared.update { phase.radio(&$0) } }
    }
    var nextAttempt: ContinuousClock.Instant?
    var lastActivity: ContinuousClock.Instant
    var devices = DeviceTable()
    /// iBeacon reports of the current dispatch, handed over together.
    var batch: [Advertisement] = []
    var removals = RemovalPolicy()
    var keeper: DiscoveryKeeper
    /// Our own power cycle's Powered=false signal is not the operator switching the adapter off.
    var cyclingPower = false
    /// What the scanner last told `shared` it waits for (nil: listening), to tell it only changes.
    private var reportedWait: String?? = .none
    var bluetoothd: BluetoothdWatch
    /// The last bluetoothd situation the operator was told of, so a long wait is one line.
    var toldSituation: String?

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

    func lostBus() {
        guard connection != nil else { return }
        connection = nil
        bluezOwner = nil
        devices.removeAll()
        wait(.noBus)
    }

    // MARK: - Waiting

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
        case let .waiting(reason):
            return reason.waitingFor(bluetoothd: bluetoothd.situation)
        case let .scanning(adapter):
            guard !keeper.isListening else { return nil }
            if let refusal = keeper.refusal { return "discovery on \(adapter.name): BlueZ refused it (\(refusal)); retrying" }
            return "discovery on \(adapter.name) to run (Adapter1.Discovering is off)"
        }
    }

    /// Enters a waiting state, telling the operator once per situation.
    func wait(_ reason: BlueZWait) {
        devices.removeAll()
        if case let .waiting(current) = phase, current.isSameSituation(as: reason) { return }
        phase = .waiting(reason)
        nextAttempt = monotonic.now + configuration.retryInterval
        reason.announce(to: logger, retry: "\(configuration.retryInterval)")
    }

    // MARK: - Helpers

    var callTimeout: Int32 { milliseconds(configuration.callTimeout) }

    /// Seconds since the session began, on the monotonic clock: the keepers' timeline.
    func elapsed() -> Double { seconds(started.duration(to: monotonic.now)) }

    private func isDue(_ instant: ContinuousClock.Instant?) -> Bool {
        instant.map { monotonic.now >= $0 } ?? false
    }

    func argument(_ arguments: [BusValue], _ index: Int, _ member: String) throws(BusError) -> BusValue {
        guard arguments.indices.contains(index) else { throw .missingArgument(index: index, member: member) }
        return arguments[index]
    }
}
