#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Wakes whoever waits for new events, instead of everyone polling: an owner's live-event
/// streams (channel `.account`) and the delivery workers (channel `.deliveries`, any queued
/// delivery: webhooks today, other kinds later).
///
/// One per database (`Database.events`): on SQLite every server on that file in this process
/// is woken directly; on PostgreSQL `PostgresEventListener` turns every replica's
/// `NOTIFY` into signals here. Each channel counts its signals, so a waiter that passes the
/// count it saw before reading the database cannot miss a signal that came in between.
public actor EventSignal {
    public enum Channel: Hashable, Sendable {
        case account(String)
        case deliveries
        /// A home sentinel's owner asked what it hears ("Find my tag").
        case sentinel(String)
    }

    /// Bumped by `signalAll`: when this process may have missed signals (a lost listener connection).
    private var epoch: UInt64 = 0
    private var counts: [Channel: UInt64] = [:]
    private var waiters: [Channel: [UUID: Waiter]] = [:]

    private struct Waiter {
        var continuation: CheckedContinuation<Void, Never>
        var timer: Task<Void, Never>?
    }

    public init() {}

    public func count(_ channel: Channel) -> UInt64 { epoch &+ counts[channel, default: 0] }

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
        for waiter in all.values.flatMap(\.values) { finish(waiter) }
    }

    /// Returns once `channel` was signalled after `seen` (at once if it already was), after
    /// `timeout`, or when the task is cancelled; the count to pass next time.
    public func wait(_ channel: Channel, after seen: UInt64, timeout: Duration) async -> UInt64 {
        if count(channel) != seen || Task.isCancelled { return count(channel) }
        let id = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                // Cancelled before getting here: the cancellation handler found nothing to release.
                if Task.isCancelled { return continuation.resume() }
                let timer = Task { [weak self] in
                    try? await Task.sleep(for: timeout)
                    await self?.release(channel, id)
                }
                waiters[channel, default: [:]][id] = Waiter(continuation: continuation, timer: timer)
            }
        } onCancel: {
            Task { await self.release(channel, id) }
        }
        return count(channel)
    }

    private func bump(_ channel: Channel) {
        counts[channel, default: 0] &+= 1
        for waiter in waiters.removeValue(forKey: channel)?.values ?? [:].values { finish(waiter) }
    }

    private func release(_ channel: Channel, _ id: UUID) {
        guard let waiter = waiters[channel]?.removeValue(forKey: id) else { return }
        if waiters[channel]?.isEmpty == true { waiters[channel] = nil }
        finish(waiter)
    }

    private func finish(_ waiter: Waiter) {
        waiter.timer?.cancel()
        waiter.continuation.resume()
    }
}
