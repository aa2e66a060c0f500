#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The site's path-loss exponent, learnt from how the fits' misses grow with distance.
///
/// A receiver without a two-point calibration reads its tag through the default exponent, while a
/// site's walls and bodies set the real one: too shallow a default reads every distance in a
/// cluttered site too long. The common shift and each receiver's own cannot take that out, as it
/// grows with distance. Within one fix, the slope of the misses against the log of distance (the
/// fix's mean miss taken out, as the common shift takes it) says how far the exponent is off; over
/// a run of fixes at many places the slopes average to the site's (over about the last
/// `offsetMemory` fixes, as the shifts are). The learnt exponent is applied as n / (n +
/// `exponentFixes`) of its way from the default after n fixes.
struct SiteExponent: Sendable {
    /// Σ of the exponents the fixes' slopes point to, and their weight (each fix 1), both fading over `memory` fixes.
    private var sums = (pointed: 0.0, weight: 0.0)
    /// How many fixes pointed to one, unfaded: what the default is weighed against.
    private var fixes = 0
    private let initial: Double
    private let priorFixes: Double
    private let memory: Int

    init(configuration: LocatorConfiguration) {
        initial = configuration.defaultExponent
        priorFixes = configuration.exponentFixes
        memory = configuration.offsetMemory
    }

    /// Exponents a site has: free space is 2, a cluttered building about 4, and below 1 a level says
    /// next to nothing about distance. One fix's slope beyond them is its noise, and is cut to them.
    static let plausible: ClosedRange<Double> = 1...4

    /// The exponent for a receiver without a two-point calibration.
    var value: Double {
        guard fixes > 0, priorFixes.isFinite else { return initial }
        let n = Double(fixes)
        return initial + (sums.pointed / sums.weight - initial) * n / (n + priorFixes)
    }

    /// One receiver's miss at a fix, after the fit's common shift, dB; its squared range from the
    /// fit's point (`Observation.squaredRange`), m²; and its shadowing, dB.
    struct Miss {
        var miss: Double
        var squaredRange: Double
        var shadowing: Double
    }

    /// Learns from one fix's misses, made with `value` as the exponent. Each weighs 1/(1 + (r/c)²), r
    /// in shadowings, as in the fit, so a reflection does not tilt the slope.
    mutating func learn(_ misses: [Miss], outlierScale: Double) {
        guard priorFixes.isFinite else { return }
        // A level is the 1 m level plus exponent × g: a miss grows by g for each unit the exponent is off.
        let terms = misses.compactMap { m -> (g: Double, miss: Double, weight: Double)? in
            guard m.miss.isFinite, m.squaredRange > 0, m.shadowing > 0 else { return nil }
            let r = m.miss / m.shadowing / outlierScale
            return (-5 * log10(m.squaredRange), m.miss, 1 / (1 + r * r))
        }
        // Through two misses, with their mean taken out, a slope is exact whatever the site.
        guard terms.count >= 3 else { return }
        let total = terms.reduce(0) { $0 + $1.weight }
        let g = terms.reduce(0) { $0 + $1.weight * $1.g } / total
        let miss = terms.reduce(0) { $0 + $1.weight * $1.miss } / total
        var spread = 0.0, covariance = 0.0
        for term in terms {
            spread += term.weight * (term.g - g) * (term.g - g)
            covariance += term.weight * (term.g - g) * (term.miss - miss)
        }
        // Receivers all about as far (their log distances within about ±1 dB per unit of exponent) give no slope.
        guard spread > 1 else { return }
        let pointed = min(max(value + covariance / spread, Self.plausible.lowerBound), Self.plausible.upperBound)
        let fade = 1 - 1 / Double(memory)
        sums = (sums.pointed * fade + pointed, sums.weight * fade + 1)
        fixes += 1
    }
}
