#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The live sentinel's time. Durations (absence timeouts, report intervals) must not move when the
/// wall clock does: a Pi has no real-time clock, boots with a stale time and is stepped by hours
/// when NTP first syncs, and an operator may `date -s`. So the core runs on the wall clock read
/// once at start, advanced by a monotonic clock, and what leaves the core is stamped with the wall
/// clock of the moment it leaves (`shift`): a reading heard before the clock was set is stamped
/// right once it is.
struct LiveClock: Sendable {
    private let startWall: Double
    private let startElapsed: Double
    private let wall: @Sendable () -> Double
    private let elapsed: @Sendable () -> Double
    private let checkedAgainstServer: @Sendable () -> Bool

    /// `wall`: seconds since the epoch; `checked`: whether `wall` has been checked against the server's clock
    /// (`ServerTime` has an answer); `elapsed`: monotonic seconds (all injected by tests).
    init(wall: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }, checked: @escaping @Sendable () -> Bool = { true },
         elapsed: (@Sendable () -> Double)? = nil) {
        let origin = ContinuousClock.now
        self.wall = wall
        checkedAgainstServer = checked
        // ContinuousClock keeps counting while the system is suspended, as absence does.
        self.elapsed = elapsed ?? { seconds(origin.duration(to: .now)) }
        startWall = wall()
        startElapsed = self.elapsed()
    }

    /// Core time now.
    var now: Double { startWall + (elapsed() - startElapsed) }

    /// What a core time is moved by to become a wall-clock stamp now.
    var shift: Double { wall() - now }

    /// Whether `shift` can be trusted: the stamping clock has been compared with the server's.
    var checked: Bool { checkedAgainstServer() }
}
