import GPSD

/// A roaming sentinel's latest fix from gpsd, and whether it is parked. Pure: the reports and the
/// times they arrived are inputs. A fix's age is judged by when it arrived here, not by the
/// receiver's own time stamp, which a receiver without a fix (or gpsfake, replaying a recording)
/// may report years off. For the same reason a fix whose receiver time is more than
/// `receiverClockTolerance` from the sentinel's own clock is stamped with the sentinel's clock: a
/// GPS week rollover (or gpsd's 1024-week correction applied to an old receiver) dates fixes
/// years ahead, and the server refuses such a time; the position itself is still good.
public struct FixKeeper: Sendable {
    /// Below this speed, metres per second, the sentinel counts as standing still.
    public static let parkedSpeed = 1.0
    /// Standing still this long, seconds, is parked.
    public static let parkedAfter = 60.0
    /// How far, seconds, the receiver's time may be from the sentinel's clock and still be the fix's time.
    public static let receiverClockTolerance = 60.0

    public let maxFixAge: Double
    /// The last report with a position, and when it arrived.
    public private(set) var last: (position: GPSDPosition, received: Double)?
    /// The last report of any kind (a receiver that lost its fix says so), and when it arrived.
    public private(set) var latestReport: (position: GPSDPosition, received: Double)?
    /// Since when every fix has been slower than `parkedSpeed`; nil while moving or without a fix.
    private var slowSince: Double?

    public init(maxFixAge: Double) {
        self.maxFixAge = maxFixAge
    }

    public mutating func take(_ position: GPSDPosition, at now: Double) {
        latestReport = (position, now)
        guard position.hasPosition else {
            // Without a fix nothing says the sentinel still stands where it stood.
            slowSince = nil
            return
        }
        last = (position, now)
        if let speed = position.speed, speed < Self.parkedSpeed {
            if slowSince == nil { slowSince = now }
        } else {
            slowSince = nil
        }
    }

    /// The fix a sighting made now carries, if one arrived within `maxFixAge`.
    public func fix(at now: Double) -> SightingFix? {
        guard let last, now - last.received <= maxFixAge, let latitude = last.position.latitude, let longitude = last.position.longitude else {
            return nil
        }
        return SightingFix(latitude: latitude, longitude: longitude, accuracy: last.position.horizontalError,
                           time: Self.fixTime(reported: last.position.time, received: last.received))
    }

    /// The receiver's time for a fix when it agrees with the sentinel's clock, else when the fix arrived.
    static func fixTime(reported: Double?, received: Double) -> Double {
        guard let reported, abs(reported - received) <= receiverClockTolerance else { return received }
        return reported
    }

    /// Where a sighting made now is placed: the fix, or none.
    public func place(at now: Double) -> SightingPlace {
        fix(at: now).map(SightingPlace.fix) ?? .noFix
    }

    /// Parked: a recent fix, slower than `parkedSpeed` for `parkedAfter` seconds.
    public func isParked(at now: Double) -> Bool {
        guard let slowSince, fix(at: now) != nil else { return false }
        return now - slowSince >= Self.parkedAfter
    }
}
