import Foundation
import Synchronization
import Testing
import TestSupport
@testable import Server

/// `EventSignal.wait` returns exactly once whatever ends it first (a signal, its deadline, its task's
/// cancellation), and leaves nothing behind: an open stream whose wait never returned could not end, and a
/// server with one would not stop on SIGTERM.
///
/// Other waits here last an hour, and a wait that is not released makes the test run into its time limit: bounds
/// on the elapsed time of a few seconds failed when a full parallel test run on two cores held a task back for 50 s.
@Suite(.timeLimit(.minutes(3))) struct EventSignalTests {
    @Test func signalBeforeTheWaitIsNotMissed() async {
        let signal = EventSignal()
        let seen = await signal.count(.account("ann"))
        await signal.signal(accounts: ["ann"])
        let next = await signal.wait(.account("ann"), after: seen, timeout: .seconds(3600))
        #expect(next != seen)
        #expect(await signal.count(.deliveries) != 0, "an account's events wake the delivery workers too")
    }

    @Test func aSignalWakesItsChannelOnly() async throws {
        let signal = EventSignal()
        let ann = Task { await signal.wait(.account("ann"), after: 0, timeout: .seconds(3600)) }
        let bob = Task { await signal.wait(.account("bob"), after: 0, timeout: .seconds(3600)) }
        #expect(try await eventually(within: 60) { await signal.waiterCount == 2 })
        await signal.signal(.account("ann"))
        #expect(await ann.value == 1)
        #expect(await signal.waiterCount == 1, "bob still waits")
        bob.cancel()
        #expect(await bob.value == 0)
        #expect(await signal.waiterCount == 0)
    }

    @Test func theDeadlineReleases() async {
        let signal = EventSignal()
        let start = ContinuousClock.now
        let next = await signal.wait(.deliveries, after: 0, timeout: .milliseconds(50))
        let elapsed = ContinuousClock.now - start
        #expect(next == 0)
        #expect(elapsed >= .milliseconds(50), "released \(elapsed) after the wait began, before its deadline")
        #expect(await signal.waiterCount == 0)
    }

    /// A waiter with a far deadline and then one with a near deadline: the alarm moves to the nearer one.
    @Test func anEarlierDeadlineMovesTheAlarm() async throws {
        let signal = EventSignal()
        let far = Task { await signal.wait(.account("far"), after: 0, timeout: .seconds(3600)) }
        #expect(try await eventually(within: 60) { await signal.waiterCount == 1 })
        #expect(await signal.wait(.account("near"), after: 0, timeout: .milliseconds(30)) == 0, "released by its own deadline")
        #expect(await signal.waiterCount == 1, "the far waiter is still waiting")
        far.cancel()
        _ = await far.value
        #expect(await signal.waiterCount == 0)
    }

    @Test func cancellationReleases() async throws {
        let signal = EventSignal()
        let waiter = Task { await signal.wait(.account("ann"), after: 0, timeout: .seconds(3600)) }
        #expect(try await eventually(within: 60) { await signal.waiterCount == 1 })
        waiter.cancel()
        #expect(await waiter.value == 0, "released by the cancellation")
        #expect(await signal.waiterCount == 0)
    }

    /// Thousands of waits on a few channels, where deadlines of 0–3 ms, signals, `signalAll` and
    /// cancellations at every point of a wait meet: every wait returns, and none is left waiting.
    @Test func timeoutSignalAndCancellationMeet() async throws {
        let signal = EventSignal()
        let returned = Counter()
        let waits = 4_000
        let signaller = Task {
            var n = 0
            while !Task.isCancelled {
                n += 1
                if n % 100 == 0 { await signal.signalAll() } else { await signal.signal(.account("owner-\(n % 8)")) }
                try? await Task.sleep(for: .microseconds(200))
            }
        }
        let stress = Task {
            await withTaskGroup(of: Void.self) { group in
                for worker in 0..<40 {
                    group.addTask {
                        for round in 0..<(waits / 40) {
                            let channel = EventSignal.Channel.account("owner-\((worker + round) % 8)")
                            let seen = await signal.count(channel)
                            let timeout = Duration.microseconds(Int64((worker * 31 + round * 17) % 3_000))
                            let waiter = Task { _ = await signal.wait(channel, after: seen, timeout: timeout) }
                            if round % 2 == 0 {
                                for _ in 0..<(round % 5) { await Task.yield() }
                                waiter.cancel()
                            }
                            await waiter.value
                            returned.value.add(1, ordering: .relaxed)
                        }
                    }
                }
            }
        }
        // A wait that never returns would hang `stress` for good: poll instead of awaiting it.
        let allReturned = try await eventually(within: 60) { returned.value.load(ordering: .relaxed) == waits }
        signaller.cancel()
        #expect(allReturned, "\(waits - returned.value.load(ordering: .relaxed)) of \(waits) waits never returned")
        if allReturned { await stress.value }
        #expect(await signal.waiterCount == 0)
    }

    @Test func deadlinesComeOutEarliestFirst() {
        var queue = DeadlineQueue<Int, String>()
        for (at, key) in [(50, "e"), (10, "a"), (30, "c"), (20, "b"), (40, "d"), (10, "a2")] { queue.insert(key, at: at) }
        #expect(queue.earliest == 10)
        #expect(Set(queue.popDue(now: 10)) == ["a", "a2"])
        #expect(queue.popDue(now: 9).isEmpty)
        #expect(queue.popDue(now: 35) == ["b", "c"])
        queue.filter { $0 != "d" }
        #expect(queue.count == 1 && queue.earliest == 50)
        #expect(queue.popDue(now: 100) == ["e"])
        #expect(queue.earliest == nil)
    }
}

/// A count shared by the stress test's tasks.
private final class Counter: Sendable {
    let value = Atomic<Int>(0)
}
