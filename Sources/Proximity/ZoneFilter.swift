import Foundation

/// The zone reported for a level, decided on the same model that gives the distance, so the
/// two cannot disagree by more than the model's own uncertainty.
///
/// - Posterior: the true level (the one the path-loss model predicts for the true distance)
///   is the observed level give or take the shadowing and the level's standard error. Shadowing
///   (walls, bodies, antenna pattern) is fixed while the beacon stands still, so it does not
///   average out over more readings: a parked beacon's posterior stays as broad as the
///   shadowing, however long it is heard. Multiplying readings as independent evidence made the
///   first filter overconfident, and on a boundary its posterior wandered between 10 % and 90 %
///   and flapped.
/// - Decision: the first zone is the band the level lies in. After that the zone changes only
///   when the posterior puts at least `switchProbability` on the far side of the reported zone's
///   edge. So the level always lies inside the reported zone's band or within
///   Φ⁻¹(`switchProbability`) standard deviations of it (0.52 σ at 0.7): the distance shown is in
///   the zone shown, within its uncertainty, by construction.
struct ZoneFilter: Sendable, Equatable {
    /// Posterior probability beyond the reported zone's edge needed to leave it.
    let switchProbability: Double
    private(set) var zone: Zone = .unknown

    init(switchProbability: Double) {
        self.switchProbability = switchProbability
    }

    mutating func reset() {
        zone = .unknown
    }

    /// - Parameters:
    ///   - level: estimated RSSI, dBm.
    ///   - spread: one-sigma uncertainty of the true level given that estimate, dB.
    ///   - immediateAbove: RSSI at the immediate/near boundary; `farBelow` at the near/far boundary.
    mutating func update(level: Double, spread: Double, immediateAbove: Double, farBelow: Double) -> Zone {
        let band: Zone = level > immediateAbove ? .immediate : level < farBelow ? .far : .near
        guard zone != .unknown else {
            zone = band
            return zone
        }
        guard band != zone, spread > 0 else { return zone }
        // The reported zone's edge on the side the level went: leaving immediate or coming
        // up from far crosses the immediate/near edge's or the near/far edge's level.
        let edge: Double = switch zone {
        case .immediate: immediateAbove
        case .far: farBelow
        default: band == .immediate ? immediateAbove : farBelow
        }
        if Self.normalCDF(abs(level - edge) / spread) >= switchProbability { zone = band }
        return zone
    }

    static func normalCDF(_ x: Double) -> Double {
        0.5 * erfc(-x / 2.0.squareRoot())
    }
}
