#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A Bayes (hidden Markov) filter over the three zones: principled hysteresis in place of a
/// margin and a dwell time.
///
/// - Observation: the filtered RSSI scatters around the level the path-loss model predicts for
///   the true distance (log-normal shadowing, spread σ). A zone's likelihood is the chance that a
///   level drawn around the observation falls in the zone's RSSI band; a small share of
///   observations is taken as meaningless (fades, reflections), so no single one can decide.
/// - Transition: the beacon changes zone at `switchRate` per second; the prior leaks that much
///   towards the neighbouring zones between observations.
/// - Evidence is weighted by the time it covers (at most one `evidenceInterval` per observation),
///   so a beacon heard ten times a second does not count as ten times the evidence: successive
///   medians share most of their readings.
/// - The first zone is the one the first level lies in; after that the reported zone changes
///   only to a zone the posterior is `decisionProbability` sure of: on a boundary the posterior
///   hovers near a half and the zone stays put.
struct ZoneFilter: Sendable, Equatable {
    struct Settings: Sendable, Equatable {
        var switchRate: Double
        var evidenceInterval: Double
        var outlierShare: Double
        var decisionProbability: Double
    }

    let settings: Settings
    /// P(immediate), P(near), P(far); nil before the first observation.
    private(set) var posterior: [Double]?
    private(set) var zone: Zone = .unknown
    private var lastTime = 0.0

    init(settings: Settings) {
        self.settings = settings
    }

    mutating func reset() {
        posterior = nil
        zone = .unknown
    }

    /// - Parameters:
    ///   - level: filtered RSSI, dBm.
    ///   - spread: one-sigma uncertainty of that level about the model, dB.
    ///   - immediateAbove: RSSI at the immediate/near boundary; `farBelow` at the near/far boundary.
    mutating func update(time: Double, level: Double, spread: Double, immediateAbove: Double, farBelow: Double) -> Zone {
        let immediate = Self.normalCDF((level - immediateAbove) / spread)
        let far = Self.normalCDF((farBelow - level) / spread)
        let outlier = settings.outlierShare
        let likelihood = [immediate, max(0, 1 - immediate - far), far].map { (1 - outlier) * $0 + outlier / 3 }
        var next: [Double]
        if let posterior {
            let elapsed = max(0, time - lastTime)
            let leak = 1 - exp(-settings.switchRate * elapsed)
            // Zones are ordered: a beacon passes through near on its way between immediate and far.
            let prior = [
                (1 - leak) * posterior[0] + leak * posterior[1] / 2,
                (1 - leak) * posterior[1] + leak * (posterior[0] + posterior[2]),
                (1 - leak) * posterior[2] + leak * posterior[1] / 2,
            ]
            let weight = min(1, elapsed / settings.evidenceInterval)
            next = zip(prior, likelihood).map { $0 * pow($1, weight) }
        } else {
            next = likelihood
        }
        let total = next.reduce(0, +)
        guard total > 0, total.isFinite else { return zone }
        next = next.map { $0 / total }
        posterior = next
        lastTime = time
        let best = next.indices.max { next[$0] < next[$1] } ?? 1
        if zone == .unknown {
            // The first zone is the one the level lies in, so it agrees with the distance shown;
            // the posterior is still broad, and the next readings move it if it was wrong.
            zone = level > immediateAbove ? .immediate : level < farBelow ? .far : .near
        } else if next[best] >= settings.decisionProbability {
            zone = [Zone.immediate, .near, .far][best]
        }
        return zone
    }

    static func normalCDF(_ x: Double) -> Double {
        0.5 * erfc(-x / 2.0.squareRoot())
    }
}
