#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import BikebeaconAPI
import Synchronization

/// The time by the server's clock, from the `Date` of its answers, carried forward on the
/// monotonic clock.
///
/// A Pi without a real-time clock boots hours or days behind, and the server refuses sightings
/// dated before the sentinel was enrolled or in its future: stamped with the stale clock, a bike
/// heard before NTP synced would never reach its owner. So while the local clock is off from the
/// server's by more than `tolerance`, what leaves the core is stamped with the server's time
/// instead; once NTP has set the clock (within the tolerance) the local clock, finer than a
/// `Date` header's second, is used again. Anchored to the monotonic clock, so a clock step between
/// two answers is no error.
public final class ServerTime: Sendable {
    /// Local and server clocks further apart than this: the local one is taken as unset. The server
    /// relies on it to know how far a sighting's time is off its own clock (`SentinelHeartbeat.ownClockTolerance`).
    public static let tolerance = SentinelHeartbeat.ownClockTolerance

    private struct Anchor {
        var server: Double
        var at: ContinuousClock.Instant
    }

    private let anchor = Mutex<Anchor?>(nil)
    private let local: @Sendable () -> Double
    private let monotonic: @Sendable () -> ContinuousClock.Instant

    /// `local` and `monotonic` are injected by tests.
    public init(local: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 },
                monotonic: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }) {
        self.local = local
        self.monotonic = monotonic
    }

    /// The server answered with `date` (whole seconds) to a request sent at `sent` and answered at
    /// `received`: taken as the middle of the round trip, at the middle of where the server's clock stood
    /// (`HTTPDate.serverClockPastDate`).
    public func observe(date: Double, sent: ContinuousClock.Instant, received: ContinuousClock.Instant) {
        let middle = sent + (received - sent) / 2
        anchor.withLock { $0 = Anchor(server: date + HTTPDate.serverClockPastDate, at: middle) }
    }

    /// The server's time now, if it ever answered.
    public var serverNow: Double? {
        let now = monotonic()
        return anchor.withLock { anchor in
            anchor.map { $0.server + seconds($0.at.duration(to: now)) }
        }
    }

    /// The wall clock to stamp with: the local one unless it is more than `tolerance` from the server's.
    public func wall() -> Double {
        let local = local()
        guard let server = serverNow, abs(local - server) > Self.tolerance else { return local }
        return server
    }
}

/// A duration in seconds, as the live clocks count.
func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
}
