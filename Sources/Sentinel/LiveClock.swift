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

    /// `wall`: seconds since the epoch; `elapsed`: monotonic seconds (both injected by tests).
    init(wall: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }, elapsed: (@Sendable () -> Double)? = nil) {
        let origin = ContinuousClock.now
        self.wall = wall
        // ContinuousClock keeps counting while the system is suspended, as absence does.
        self.elapsed = elapsed ?? { seconds(origin.duration(to: .now)) }
        startWall = wall()
        startElapsed = self.elapsed()
    }

    /// Core time now.
    var now: Double { startWall + (elapsed() - startElapsed) }

    /// What a core time is moved by to become a wall-clock stamp now.
    var shift: Double { wall() - now }
}
