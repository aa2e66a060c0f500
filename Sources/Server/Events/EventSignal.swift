/// Wakes whoever waits for new events, instead of everyone polling: an owner's live-event
/// streams (channel `.account`) and the delivery workers (channel `.deliveries`, any queued
/// delivery: webhooks today, other kinds later).
///
/// One per database (`Database.events`): on SQLite every server on that file in this process
/// is woken directly; on PostgreSQL `PostgresEventListener` turns every replica's
/// `NOTIFY` into signals here. Each channel counts its signals, so a waiter that passes the
/// count it saw before reading the database cannot miss a signal that came in between.
///
/// A waiter is a continuation and a deadline, nothing more: one alarm task sleeps until the
/// earliest deadline of all (an open stream waits 15 s at a time; a timer task each cost tens of
/// thousands of tasks at a city's load). Whichever comes first of a signal, the deadline and the
/// waiting task's cancellation resumes the continuation, once: each takes the waiter out of
/// `waiters` on this actor, and the later ones find it gone.
public actor EventSignal {
    public enum Channel: Hashable, Sendable {
        case account(String)
        case deliveries
        /// A home sentinel's owner asked what it hears ("Find my tag").
        case sentinel(String)
    }

    private struct WaiterKey: Hashable, Sendable {
        var channel: Channel
        var id: UInt64
    }

    /// Bumped by `signalAll`: when this process may have missed signals (a lost listener connection).
    private var epoch: UInt64 = 0
    private var counts: [Channel: UInt64] = [:]
    private var waiters: [Channel: [UInt64: CheckedContinuation<Void, Never>]] = [:]
    private var waiting = 0
    private var nextID: UInt64 = 0
    /// Every waiter's deadline; a waiter woken earlier leaves its entry here until it comes due
    /// (or until entries of gone waiters outnumber the waiting ones, when they are swept out).
    private var deadlines = DeadlineQueue<ContinuousClock.Instant, WaiterKey>()
    /// The one task sleeping until `deadlines.earliest`; `generation` tells a superseded alarm from the current one.
    private var alarm: (at: ContinuousClock.Instant, generation: UInt64, task: Task<Void, Never>)?
    private var alarmGeneration: UInt64 = 0
    /// How late a deadline may be released, so that one ring serves every deadline this close to the first
    /// (19 000 streams' keep-alives come due about 1 300 times a second, each at its own instant).
    static let slack: Duration = .milliseconds(10)

    public init() {}

    public func count(_ channel: Channel) -> UInt64 { epoch &+ counts[channel, default: 0] }

    /// How many calls to `wait` are suspended now (the tests' view of leaked waiters).
    var waiterCount: Int { waiting }

    /// New events for these accounts; the delivery workers are woken too.
    public func signal(accounts: some Sequence<String>) {
        var any = false
        for account in accounts {
            any = true
            bump(.account(account))
        }
        if any { bump(.deliveries) }
    }

    public func signal(_ channel: Channel) { bump(channel) }

    /// Wakes every waiter: something may have been missed, everyone checks the database.
    public func signalAll() {
        epoch &+= 1
        let all = waiters
        waiters = [:]
        waiting = 0
        for continuation in all.values.flatMap(\.values) { continuation.resume() }
    }

    /// Returns once `channel` was signalled after `seen` (at once if it already was), after
    /// `timeout`, or when the task is cancelled; the count to pass next time.
    public func wait(_ channel: Channel, after seen: UInt64, timeout: Duration) async -> UInt64 {
        if count(channel) != seen || Task.isCancelled { return count(channel) }
        let key = WaiterKey(channel: channel, id: nextID)
        nextID &+= 1
        let deadline = ContinuousClock.now.advanced(by: timeout)
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                // On this actor, with no suspension since the check above. Cancelled already: the
                // cancellation handler's release, queued behind this, will find nothing.
                if Task.isCancelled { return continuation.resume() }
                waiters[channel, default: [:]][key.id] = continuation
                waiting += 1
                deadlines.insert(key, at: deadline)
                armAlarm()
            }
        } onCancel: {
            Task { await self.release(key) }
        }
        return count(channel)
    }

    private func bump(_ channel: Channel) {
        counts[channel, default: 0] &+= 1
        guard let woken = waiters.removeValue(forKey: channel) else { return }
        waiting -= woken.count
        for continuation in woken.values { continuation.resume() }
    }

    private func release(_ key: WaiterKey) {
        guard let continuation = waiters[key.channel]?.removeValue(forKey: key.id) else { return }
        if waiters[key.channel]?.isEmpty == true { waiters[key.channel] = nil }
        waiting -= 1
        continuation.resume()
    }

    /// Releases the waiters whose deadline has come and sets the alarm for the next one.
    private func expire(generation: UInt64) {
        guard alarm?.generation == generation else { return }
        alarm = nil
        for key in deadlines.popDue(now: .now) { release(key) }
        armAlarm()
    }

    /// Makes sure the alarm rings at the earliest deadline, and sweeps out deadlines of waiters already gone
    /// once they outnumber the waiting ones (a waiter woken by signals many times a second leaves one each time).
    private func armAlarm() {
        if deadlines.count > 2 * waiting + 64 {
            deadlines.filter { waiters[$0.channel]?[$0.id] != nil }
        }
        guard let earliest = deadlines.earliest else {
            alarm?.task.cancel()
            alarm = nil
            return
        }
        let ring = earliest.advanced(by: Self.slack)
        if let alarm, alarm.at <= ring { return }
        alarm?.task.cancel()
        alarmGeneration &+= 1
        let generation = alarmGeneration
        alarm = (ring, generation, Task { [weak self] in
            // Cancelled: an earlier deadline took its place.
            guard (try? await Task.sleep(until: ring, clock: .continuous)) != nil else { return }
            await self?.expire(generation: generation)
        })
    }
}
