import BikebeaconAPI
import Foundation
import Locating

/// How to read one sentinel's sightings in a fusion (#44), from its latest heartbeat: how far their times
/// are off the server's clock, and the path-loss model their distances came from. Pure.
struct SentinelReading: Sendable, Equatable {
    /// The stamps' clock minus the server's, seconds; nil when the sentinel never said.
    var stampOffset: Double?
    var pathLoss: SentinelPathLoss?

    init(stampOffset: Double?, pathLoss: SentinelPathLoss?) {
        self.stampOffset = stampOffset
        self.pathLoss = pathLoss
    }

    /// What a heartbeat says of its sightings.
    init(_ beat: SentinelHeartbeat) {
        self.init(stampOffset: Self.stampOffset(clockOffset: beat.clockOffsetSeconds), pathLoss: beat.pathLoss)
    }

    /// What the migration reads of a heartbeat stored before the columns; anything else in it is no matter here.
    private struct Stored: Decodable {
        var clockOffsetSeconds: Double?
        var pathLoss: SentinelPathLoss?
    }

    /// From a stored `sentinel_health.heartbeat`; nil when it cannot be read. Only the migration that
    /// fills the columns for heartbeats stored before them reads the JSON; an estimate reads the columns.
    init?(heartbeat text: String) {
        guard let stored = try? JSONDecoder().decode(Stored.self, from: Data(text.utf8)) else { return nil }
        self.init(stampOffset: Self.stampOffset(clockOffset: stored.clockOffsetSeconds), pathLoss: stored.pathLoss)
    }

    /// How far a sentinel's stamps are off the server's clock: its clock's offset while that is within
    /// `ownClockTolerance`; beyond it the sentinel stamps by the server's clock (`ServerTime`), so 0. A clock
    /// 4 minutes fast thus moves nothing, and at most `ownClockTolerance` is ever taken off a stamp.
    static func stampOffset(clockOffset: Double?) -> Double? {
        guard let clockOffset, clockOffset.isFinite else { return nil }
        return abs(clockOffset) <= SentinelHeartbeat.ownClockTolerance ? clockOffset : 0
    }

    /// The calibration a sighting can honestly claim. Its `rssi` is the sentinel's level (its receiver offset
    /// applied) and its `distance` that level through RSSI = P − 10·n·log10(d), so P = rssi + 10·n·log10(d),
    /// with n the near-field exponent inside 1 m: the tag's advertised power, which a calibrated receiver
    /// reads at 1 m. That P is a one-point calibration when the receiver's offset was measured on site, and
    /// two-point with the exponent when that was measured too; an uncalibrated sentinel, a sighting without a
    /// distance, or a sentinel that never said (older than #44) claims nothing. A `distance` held at a zone's
    /// edge (`ProximityEstimator.clamp`) puts P up to the zone switch's margin (about 3 dB) high: within the
    /// one-point model's spread.
    func calibration(rssi: Int, distance: Double?) -> ReceiverCalibration {
        guard let pathLoss, pathLoss.calibration != .none, let distance, distance.isFinite, distance > 0 else { return .none }
        let exponent = distance < 1 ? pathLoss.nearFieldExponent : pathLoss.exponent
        let power = Double(rssi) + 10 * exponent * log10(distance)
        // A power no receiver reads at 1 m (as `ProximityEstimator.isPlausible` bounds a level) is no calibration.
        guard power.isFinite, power < 0, power > -127 else { return .none }
        switch pathLoss.calibration {
        case .none: return .none
        case .onePoint: return .onePoint(rssiAt1m: power)
        case .twoPoint: return .twoPoint(rssiAt1m: power, exponent: pathLoss.exponent)
        }
    }
}
