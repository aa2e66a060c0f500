/// Keeps our BlueZ discovery session running, and knows when it is not.
///
/// BlueZ's reply to `StartDiscovery` is not the truth about the radio. When bluetoothd dies, the
/// kernel's discovery it started runs on (up to the 10.24 s LE timer); a new bluetoothd's start is
/// refused by the kernel as Busy, BlueZ answers `InProgress` and drops the caller from its
/// discovery clients, and nothing starts it again. `Adapter1.Discovering` is what BlueZ knows the
/// controller does, so the keeper arms discovery, follows that property, and arms it again with
/// back-off whenever it is off while we mean to scan, whatever turned it off.
///
/// Pure: times are seconds on a monotonic clock, given by the caller.
struct DiscoveryKeeper: Sendable {
    struct Configuration: Sendable {
        /// How long `Discovering` may stay off after an accepted start (BlueZ sets it when the
        /// kernel confirms) before the session counts as lost.
        var grace = 2.0
        /// Back-off between refused starts: the first wait, doubling up to `longestWait`. Short,
        /// because the usual refusal (a dead daemon's discovery) clears within seconds.
        var firstWait = 0.25
        var longestWait = 2.0
        /// Refused for this long while nobody discovers: the kernel holds an orphaned discovery, and
        /// powering the adapter off and on clears it (nil: only wait for it to end).
        var resetAfter: Double? = 3
    }

    enum Action: Equatable, Sendable {
        case none
        /// Call `StartDiscovery`; `stopFirst`: `StopDiscovery` before it, since BlueZ may still
        /// count us as a client and would answer `InProgress` to a second start.
        case start(stopFirst: Bool)
        /// Power the adapter off and on, then start.
        case powerCycle
    }

    let configuration: Configuration
    /// Our `StartDiscovery` was accepted and nothing since says the session ended.
    private(set) var armed = false
    /// `Adapter1.Discovering` as last read; nil before it is known.
    private(set) var discovering: Bool?
    /// The last refusal's D-Bus error name, while refusals go on (for the operator).
    private(set) var refusal: String?
    /// How many starts in a row were refused or lost.
    private(set) var failures = 0
    private var nextStart: Double?
    private var offSince: Double?
    private var refusedSince: Double?
    private var resetTried = false
    private var stopFirst = false

    init(configuration: Configuration = .init()) {
        self.configuration = configuration
    }

    /// Whether the radio is listening for us: our session accepted and BlueZ discovering.
    var isListening: Bool { armed && discovering == true }

    /// A fresh adapter (found, or back after bluetoothd or the adapter went): start now.
    mutating func begin(now: Double, discovering: Bool?) {
        self = DiscoveryKeeper(configuration: configuration)
        self.discovering = discovering
        nextStart = now
    }

    /// What to do now. A `start` must be followed by `accepted` or `refused`; a `powerCycle` by
    /// `powerCycled` or `refused`.
    mutating func due(now: Double) -> Action {
        if armed {
            guard let offSince, now - offSince >= configuration.grace else { return .none }
            lose(now: now)
        }
        guard let next = nextStart, now >= next else { return .none }
        nextStart = nil
        if let resetAfter = configuration.resetAfter, !resetTried, let refusedSince, now - refusedSince >= resetAfter,
           discovering != true {
            resetTried = true
            return .powerCycle
        }
        return .start(stopFirst: stopFirst)
    }

    /// BlueZ accepted `StartDiscovery`.
    mutating func accepted(now: Double) {
        armed = true
        failures = 0
        refusal = nil
        refusedSince = nil
        resetTried = false
        stopFirst = true
        nextStart = nil
        offSince = discovering == true ? nil : now
    }

    /// BlueZ refused the start (or the power cycle failed): try again after the back-off.
    mutating func refused(_ error: String, now: Double) {
        armed = false
        refusal = error
        refusedSince = refusedSince ?? now
        stopFirst = true
        failures += 1
        nextStart = now + wait(after: failures)
    }

    /// `Adapter1.Discovering` changed.
    mutating func discoveringChanged(_ value: Bool, now: Double) {
        discovering = value
        if value {
            offSince = nil
        } else if armed {
            offSince = offSince ?? now
        }
    }

    /// The adapter was powered off and on: BlueZ dropped every discovery client, so start afresh
    /// at once; the refusal streak goes on (one power cycle per streak).
    mutating func powerCycled(now: Double) {
        armed = false
        offSince = nil
        stopFirst = false
        nextStart = now
    }

    /// Start again now, whatever BlueZ says (the watchdog heard nothing for too long).
    mutating func restart(now: Double) {
        lose(now: now)
    }

    /// The armed session went (Discovering stayed off): start again at once, stopping ours first.
    private mutating func lose(now: Double) {
        armed = false
        offSince = nil
        stopFirst = true
        failures += 1
        nextStart = now
    }

    private func wait(after failures: Int) -> Double {
        min(configuration.longestWait, configuration.firstWait * Double(1 << min(failures - 1, 16)))
    }
}
