#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Proximity

/// The probability that a beacon is within a region's distance limit, filtered reading by
/// reading: a two-state Bayes filter, the region's counterpart of the estimator's zone filter.
///
/// Each reading scatters about the level at the true distance by `scatter` dB (log-normal
/// shadowing) and is compared with the level at the limit through the estimate's model; its
/// likelihood of "inside" is the chance that the truth lies within the limit, with a share of
/// readings taken as meaningless (deep fades, reflections), so no single reading enters or
/// leaves. Between readings the belief leaks towards the other state at `switchRate` per
/// second, which bounds how sure it gets and so how long clear evidence takes to move it:
/// seconds for a walk out of the door, never for a parked bike's noise. Evidence is weighted
/// by the time it covers (at most `evidenceInterval` per reading), so a fast advertiser does
/// not count as more proof than a slow one.
struct MembershipBelief: Sendable {
    struct Settings: Sendable {
        var scatter: Double
        var switchRate: Double
        var evidenceInterval: Double
        var outlierShare: Double
    }

    /// P(inside).
    private(set) var probability: Double
    private var lastTime: Double?

    init(probability: Double) {
        self.probability = probability
    }

    /// The model for estimates that carry none (built by hand): one slope of 2, free space.
    static let freeSpace = PathLossModel(measuredPower: -59, exponent: 2, nearFieldExponent: 2)

    mutating func update(time: Double, readingDistance: Double, limit: Double, model: PathLossModel, settings: Settings) {
        guard readingDistance > 0, limit > 0 else { return }
        let margin = (model.rssi(at: readingDistance) - model.rssi(at: limit)) / settings.scatter
        let within = 0.5 * erfc(-margin / 2.0.squareRoot())
        let outlier = settings.outlierShare
        let inside = (1 - outlier) * within + outlier / 2
        let outside = (1 - outlier) * (1 - within) + outlier / 2
        var prior = probability
        var weight = 1.0
        if let lastTime {
            let elapsed = max(0, time - lastTime)
            let leak = 1 - exp(-settings.switchRate * elapsed)
            prior = prior * (1 - leak) + (1 - prior) * leak
            weight = min(1, elapsed / settings.evidenceInterval)
        }
        let a = prior * pow(inside, weight), b = (1 - prior) * pow(outside, weight)
        guard a + b > 0 else { return }
        probability = a / (a + b)
        lastTime = time
    }
}

extension Region {
    /// For a region without a distance limit: whether an estimate counts as inside (any
    /// reading, or a known zone when the region asks for `far`).
    func admits(_ estimate: ProximityEstimate) -> Bool {
        (requiredZone.map { $0 == .unknown } ?? true) || estimate.zone != .unknown
    }

    /// The tightest distance the region asks for, metres; nil when it asks for none, or only
    /// for `far` (any known distance).
    var distanceLimit: Double? {
        let zoneLimit: Double? = switch requiredZone {
        case .immediate: Zone.immediateLimit
        case .near: Zone.nearLimit
        case .far, .unknown, nil: nil
        }
        switch (zoneLimit, maximumDistance) {
        case let (z?, d?): return min(z, d)
        case let (z?, nil): return z
        case let (nil, d?): return d
        case (nil, nil): return nil
        }
    }
}
