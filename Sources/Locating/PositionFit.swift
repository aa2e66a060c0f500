#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Proximity

/// What one receiver says at one fix: where it is and how strongly it hears the tag.
public struct Observation: Sendable, Equatable {
    public var position: PlanePoint
    /// The receiver's level: median RSSI over the window, dBm.
    public var level: Double
    public var rssiAt1m: Double
    public var exponent: Double
    /// Spread of `level` about the model, dB.
    public var shadowing: Double
    /// How far `position` may be off, metres; 0 for a surveyed place.
    public var positionAccuracy: Double

    public init(position: PlanePoint, level: Double, rssiAt1m: Double, exponent: Double, shadowing: Double, positionAccuracy: Double = 0) {
        self.position = position
        self.level = level
        self.rssiAt1m = rssiAt1m
        self.exponent = exponent
        self.shadowing = shadowing
        self.positionAccuracy = positionAccuracy
    }

    /// Metres at which the log-distance model expects `level`.
    public var distance: Double { PathLossModel(measuredPower: rssiAt1m, exponent: exponent, nearFieldExponent: exponent).distance(rssi: level) }
}

/// One position from one fix's observations: a robust fit in the RSSI domain with a prior toward
/// the centroid of the receivers it trusts.
///
/// Each level is compared with the log-distance model at the candidate point, in dB, where
/// shadowing is about normal. Residuals weigh 1/(1 + (r/c)²) (Cauchy, by iteratively reweighted
/// Gauss–Newton), so a reflected or walled-off receiver several deviations off drops out instead
/// of dragging the point. The fit starts from whichever of the centroid and the receivers' places
/// the levels agree with best, so one receiver reading far too strong cannot capture the start.
/// The prior (`priorSpread` metres) pulls toward the 1/d²-weighted centroid of the receivers,
/// each also weighted by how well it fits: where distances say little (two receivers, all far
/// away), the point stays between the receivers that agree.
public struct PositionFit: Sendable, Equatable {
    public var point: PlanePoint
    /// The plain RSSI-weighted centroid (all receivers, 1/d²).
    public var centroid: PlanePoint
    /// Standard deviation of the point from the fit's information (trace of its covariance), metres.
    public var standardDeviation: Double
    /// What the radius is a multiple of, metres: the standard deviation, the disagreement between
    /// the fit and the plain centroid (a receiver the fit discounts pulls the centroid away), and
    /// the receivers' own place accuracy, in quadrature. With one receiver, its distance stands in
    /// for the disagreement: the tag is somewhere around it.
    public var spread: Double

    /// Nil for no observations.
    public static func fit(_ observations: [Observation], configuration: LocatorConfiguration) -> PositionFit? {
        guard let centroid = weightedCentroid(observations, nearestRange: configuration.nearestRange) else { return nil }
        let sigmas = observations.map { observation in
            // A place known to ±a metres blurs the level by about a·(dB per metre) at the distance heard.
            let range = max(observation.distance, configuration.nearestRange)
            let placeDB = 10 * observation.exponent / log(10) * observation.positionAccuracy / range
            return (observation.shadowing * observation.shadowing + placeDB * placeDB).squareRoot()
        }
        let near2 = configuration.nearestRange * configuration.nearestRange
        let c2 = configuration.outlierScale * configuration.outlierScale
        /// Residual in standard deviations, and its gradient, at `point`.
        func residual(_ index: Int, at point: PlanePoint) -> (value: Double, x: Double, y: Double) {
            let observation = observations[index]
            let dx = point.x - observation.position.x, dy = point.y - observation.position.y
            let rho2 = dx * dx + dy * dy + near2
            let predicted = observation.rssiAt1m - 5 * observation.exponent * log10(rho2)
            // d(predicted)/d(point), per standard deviation.
            let g = -10 * observation.exponent / log(10) / rho2 / sigmas[index]
            return ((observation.level - predicted) / sigmas[index], g * dx, g * dy)
        }
        func loss(at point: PlanePoint) -> Double {
            observations.indices.reduce(0) { sum, i in
                let r = residual(i, at: point).value
                return sum + log(1 + r * r / c2)
            }
        }
        var point = ([centroid] + observations.map(\.position)).min { loss(at: $0) < loss(at: $1) } ?? centroid
        let priorInformation = 1 / (configuration.priorSpread * configuration.priorSpread)
        var information = (xx: priorInformation, xy: 0.0, yy: priorInformation)
        var weights = [Double](repeating: 1, count: observations.count)
        for _ in 0..<20 {
            var a = (xx: priorInformation, xy: 0.0, yy: priorInformation)
            var terms: [(value: Double, x: Double, y: Double)] = []
            for i in observations.indices {
                let r = residual(i, at: point)
                weights[i] = 1 / (1 + r.value * r.value / c2)
                terms.append(r)
            }
            let centre = weightedCentroid(observations, nearestRange: configuration.nearestRange, trust: weights) ?? centroid
            var b = (x: -(point.x - centre.x) * priorInformation, y: -(point.y - centre.y) * priorInformation)
            for (weight, term) in zip(weights, terms) {
                a.xx += weight * term.x * term.x
                a.xy += weight * term.x * term.y
                a.yy += weight * term.y * term.y
                b.x += weight * term.x * term.value
                b.y += weight * term.y * term.value
            }
            information = a
            let determinant = a.xx * a.yy - a.xy * a.xy
            guard determinant > 0 else { break }
            let step = (x: (a.yy * b.x - a.xy * b.y) / determinant, y: (a.xx * b.y - a.xy * b.x) / determinant)
            point.x += step.x
            point.y += step.y
            if step.x * step.x + step.y * step.y < 1e-6 { break }
        }
        let determinant = information.xx * information.yy - information.xy * information.xy
        let variance = determinant > 0 ? (information.xx + information.yy) / determinant : 2 / priorInformation
        let disagreement = observations.count == 1 ? observations[0].distance : point.distance(to: centroid)
        let accuracy = observations.map(\.positionAccuracy).reduce(0, +) / Double(observations.count)
        let spread = (variance + disagreement * disagreement + accuracy * accuracy).squareRoot()
        return PositionFit(point: point, centroid: centroid, standardDeviation: variance.squareRoot(), spread: spread)
    }

    /// The receivers' places weighted by 1/d², d each one's modelled distance (at least
    /// `nearestRange`), times `trust` when given: a Nadaraya–Watson centroid, as
    /// ESPresense-companion's. Nil for none, or when nothing is trusted.
    public static func weightedCentroid(_ observations: [Observation], nearestRange: Double, trust: [Double]? = nil) -> PlanePoint? {
        var sum = (x: 0.0, y: 0.0, weight: 0.0)
        for (index, observation) in observations.enumerated() {
            let range = max(observation.distance, nearestRange)
            let weight = (trust?[index] ?? 1) / (range * range)
            sum.x += weight * observation.position.x
            sum.y += weight * observation.position.y
            sum.weight += weight
        }
        guard sum.weight > 0 else { return nil }
        return PlanePoint(x: sum.x / sum.weight, y: sum.y / sum.weight)
    }
}
