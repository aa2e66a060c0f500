import Beacon
import DBus
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import Synchronization

/// Settings of the BlueZ backend.
public struct DBusScannerConfiguration: Sendable {
    /// `hci0` (or an object path); nil scans on the first powered adapter.
    public var adapter: String?
    /// A D-Bus address to use instead of the system bus (tests run a private bus).
    public var busAddress: String?
    /// No advertisement for this long restarts discovery (BlueZ scans stall silently on many setups).
    public var watchdogInterval: Duration
    /// How often to look again while bluetoothd or the adapter is missing.
    public var retryInterval: Duration
    /// Longest wait for one BlueZ method call.
    public var callTimeout: Duration
    /// Ask BlueZ to forget devices that are not iBeacons, so its cache stays small.
    public var removesIgnoredDevices: Bool
    /// When discovery stays refused while nobody discovers (a dead bluetoothd's discovery still
    /// runs in the kernel), power the adapter off and on to end it instead of waiting it out.
    public var resetsStuckDiscovery: Bool
    /// When bluetoothd crashed and systemd does not restart it, ask D-Bus to start it.
    public var activatesBluetoothd: Bool
    /// bluetoothd gone this long before systemd is asked whether it crashed.
    public var activationDelay: Duration
    /// Longest wait for D-Bus to start bluetoothd.
    public var activationTimeout: Duration

    public init(
        adapter: String? = nil, busAddress: String? = nil, watchdogInterval: Duration = .seconds(60),
        retryInterval: Duration = .seconds(5), callTimeout: Duration = .seconds(5), removesIgnoredDevices: Bool = true,
        resetsStuckDiscovery: Bool = true, activatesBluetoothd: Bool = true, activationDelay: Duration = .seconds(2),
        activationTimeout: Duration = .seconds(10)
    ) {
        self.adapter = adapter
        self.busAddress = busAddress
        self.watchdogInterval = watchdogInterval
        self.retryInterval = retryInterval
        self.callTimeout = callTimeout
        self.removesIgnoredDevices = removesIgnoredDevices
        self.resetsStuckDiscovery = resetsStuckDiscovery
        self.activatesBluetoothd = activatesBluetoothd
        self.activationDelay = activationDelay
        self.activationTimeout = activationTimeout
    }

    /// The discovery keeper's settings.
    var discovery: DiscoveryKeeper.Configuration {
        var keeper = DiscoveryKeeper.Configuration()
        if !resetsStuckDiscovery { keeper.resetAfter = nil }
        return keeper
    }
}

/// Why the BlueZ backend gave up (everything else it waits out and logs).
public enum DBusScannerError: Error, Sendable, CustomStringConvertible {
    case cannotConnect(BusError)
    case accessDenied(BusError)

    public var description: String {
        switch self {
        case let .cannotConnect(error):
            "cannot connect to the system D-Bus (\(error)): is dbus running? (systemctl status dbus)"
        case let .accessDenied(error):
            "BlueZ refused access (\(error)): run as root or add the user to the 'bluetooth' group"
        }
    }
}

/// Backend 1: iBeacons from BlueZ over D-Bus (libdbus-1).
///
/// libdbus blocks, so each stream runs its own connection on a dedicated thread and hands the
/// advertisements out through the stream; Swift's cooperative pool never waits on the bus.
public final class DBusScanner: Scanner {
    private let configuration: DBusScannerConfiguration
    private let logger: Logger
    private let clock: @Sendable () -> Double
    private let shared = ScanShared()

    /// `clock` stamps each advertisement (epoch seconds); tests pass their own.
    public init(
        configuration: DBusScannerConfiguration = .init(), logger: Logger = Logger(label: "bikebeacon.dbus"),
        clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }
    ) {
        self.configuration = configuration
        self.logger = logger
        self.clock = clock
    }

    /// Starts scanning. Ending the consuming task (or dropping the stream) stops discovery. A
    /// batch holds what one dispatch of the bus delivered. The stream buffers without limit, so a
    /// slow consumer costs memory but never loses a report.
    public func advertisementBatches() -> AsyncThrowingStream<[Advertisement], any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: [Advertisement].self)
        let runID = shared.begin()
        continuation.onTermination = { [shared] _ in shared.requestStop(runID) }
        do {
            try BlockingThread.start { [configuration, logger, clock, shared] in
                let session = BlueZSession(
                    configuration: configuration, logger: logger, clock: clock, shared: shared, runID: runID,
                    continuation: continuation
                )
                session.run()
            }
        } catch {
            shared.end(runID)
            continuation.finish(throwing: error)
        }
        return stream
    }

    /// Totals so far. Once a stream has ended, waits for its thread to stop discovery and
    /// disconnect, so the totals are final.
    public func counts() async -> ScanCounts {
        await shared.countsWhenSettled()
    }

    public func deafSeconds() -> Double { shared.deafSeconds() }
}

/// State the scanning thread shares with the async side.
final class ScanShared: Sendable {
    private struct State {
        var counts = ScanCounts()
        /// Since when the running session has been unable to listen; nil while it listens.
        var deafSince: ContinuousClock.Instant?
        /// Deafness of earlier stretches, in seconds.
        var deafBefore = 0.0
        var runs = 0
        var stopRequested: Set<Int> = []
        var running: Set<Int> = []
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Registers a new run and returns its number.
    func begin() -> Int {
        state.withLock {
            $0.runs += 1
            $0.running.insert($0.runs)
            return $0.runs
        }
    }

    func requestStop(_ run: Int) {
        state.withLock { state in
            if state.running.contains(run) { state.stopRequested.insert(run) }
        }
    }

    func isStopRequested(_ run: Int) -> Bool {
        state.withLock { $0.stopRequested.contains(run) }
    }

    func update(_ change: (inout ScanCounts) -> Void) {
        state.withLock { change(&$0.counts) }
    }

    /// The session can hear (discovery running), or cannot and waits for `waitingFor`.
    func setListening(_ listening: Bool, waitingFor: String?) {
        let now = ContinuousClock.now
        state.withLock { state in
            state.counts.waitingFor = listening ? nil : waitingFor
            state.counts.scanning = listening
            if listening, let since = state.deafSince {
                state.deafBefore += seconds(since.duration(to: now))
                state.deafSince = nil
            } else if !listening, state.deafSince == nil {
                state.deafSince = now
            }
        }
    }

    func deafSeconds() -> Double {
        let now = ContinuousClock.now
        return state.withLock { state in Self.deafness(state, at: now) }
    }

    private static func deafness(_ state: State, at now: ContinuousClock.Instant) -> Double {
        state.deafBefore + (state.deafSince.map { seconds($0.duration(to: now)) } ?? 0)
    }

    /// The thread of `run` is done: once no stopping run is left, wakes those waiting for final totals.
    func end(_ run: Int) {
        let now = ContinuousClock.now
        let waiters = state.withLock { state in
            // Not scanning is not deafness: nobody means to listen any more.
            state.deafBefore = Self.deafness(state, at: now)
            state.deafSince = nil
            state.counts.waitingFor = nil
            state.running.remove(run)
            state.stopRequested.remove(run)
            guard state.running.isDisjoint(with: state.stopRequested) else { return [CheckedContinuation<Void, Never>]() }
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// The counts, after any run that was asked to stop has finished.
    func countsWhenSettled() async -> ScanCounts {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let settled = state.withLock { state in
                if state.running.isDisjoint(with: state.stopRequested) { return true }
                state.waiters.append(continuation)
                return false
            }
            if settled { continuation.resume() }
        }
        let now = ContinuousClock.now
        return state.withLock { state in
            var counts = state.counts
            counts.deafSeconds = Self.deafness(state, at: now)
            return counts
        }
    }
}
