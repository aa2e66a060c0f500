import GPSD

/// A roaming sentinel's latest fix from gpsd, and whether it is parked. Pure: the reports and the
/// times they arrived are inputs. A fix's age is judged by when it arrived here, not by the
/// receiver's own time stamp, which a receiver without a fix (or gpsfake, replaying a recording)
/// may report years off.
public struct FixKeeper: Sendable {
    /// Below this speed, metres per second, the sentinel counts as standing still.
    public static let parkedSpeed = 1.0
    /// Standing still this long, seconds, is parked.
    public static let parkedAfter = 60.0

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
                           time: last.position.time ?? last.received)
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
