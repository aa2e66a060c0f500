import Synchronization
import Testing
@testable import Sentinel

/// A Pi without a real-time clock stamps by the server's clock until NTP sets its own: otherwise
/// the server refuses what it heard before then as dated before its enrolment.
struct ServerTimeTests {
    final class Clocks: Sendable {
        let local = Mutex(1_000.0)
        let origin = ContinuousClock.now
        let elapsed = Mutex(Duration.zero)
        func advance(_ seconds: Double) {
            local.withLock { $0 += seconds }
            elapsed.withLock { $0 += .milliseconds(Int64(seconds * 1000)) }
        }
        var monotonic: ContinuousClock.Instant { origin + elapsed.withLock { $0 } }
    }

    static func make(_ clocks: Clocks) -> ServerTime {
        ServerTime(local: { clocks.local.withLock { $0 } }, monotonic: { clocks.monotonic })
    }

    @Test func localClockUntilTheServerHasAnswered() {
        let clocks = Clocks()
        #expect(Self.make(clocks).wall() == 1_000)
    }

    @Test func aClockHoursBehindStampsByTheServerAndAStepDoesNotDoubleIt() {
        let clocks = Clocks()
        let time = Self.make(clocks)
        let server = 1_000.0 + 5 * 3600
        let sent = clocks.monotonic
        clocks.advance(0.2)
        time.observe(date: server, sent: sent, received: clocks.monotonic)
        #expect(abs(time.wall() - (server + 1 + 0.1)) < 0.01, "the middle of the round trip, a second past the cached Date")
        clocks.advance(30)
        #expect(abs(time.wall() - (server + 31.1)) < 0.01, "carried on the monotonic clock")
        // NTP sets the local clock: it is used again at once, without waiting for another answer.
        clocks.local.withLock { $0 = server + 31 }
        #expect(time.wall() == server + 31)
    }

    @Test func aSmallOffsetKeepsTheLocalClock() {
        let clocks = Clocks()
        let time = Self.make(clocks)
        time.observe(date: 1_000 + 90, sent: clocks.monotonic, received: clocks.monotonic)
        #expect(time.wall() == 1_000, "within two minutes the local clock (NTP's, finer than a Date header) stands")
    }
}
