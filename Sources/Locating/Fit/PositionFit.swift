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

    /// The level the log-distance model expects with the tag at `point` (`nearestRange` the least
    /// horizontal distance it takes), dBm.
    public func expectedLevel(at point: PlanePoint, nearestRange: Double) -> Double {
        expectedLevel(squaredRange: squaredRange(to: point, nearestRange: nearestRange))
    }

    /// The squared range the model takes from the receiver to `point`, m²: the horizontal distance and `nearestRange` in quadrature.
    func squaredRange(to point: PlanePoint, nearestRange: Double) -> Double {
        let dx = point.x - position.x, dy = point.y - position.y
        return dx * dx + dy * dy + nearestRange * nearestRange
    }

    /// The same at a squared range already known (the fit needs it for the gradient too), m².
    func expectedLevel(squaredRange: Double) -> Double { rssiAt1m - 5 * exponent * log10(squaredRange) }

    /// Metres at which the log-distance model expects `level`.
    public var distance: Double { distance(shiftedBy: 0, exponentAtMost: .infinity) }

    /// Metres at which the model expects `level` less `offset` dB, with no exponent steeper than `cap`.
    func distance(shiftedBy offset: Double, exponentAtMost cap: Double) -> Double {
        let slope = min(exponent, cap)
        return PathLossModel(measuredPower: rssiAt1m, exponent: slope, nearFieldExponent: slope).distance(rssi: level - offset)
    }
}

/// One position from one fix's observations: a robust fit in the RSSI domain with a prior toward
/// the centroid of the receivers it trusts.
///
/// Each level is compared with the log-distance model at the candidate point, in dB, where
/// shadowing is about normal. Residuals weigh 1/(1 + (r/c)²) (Cauchy, by iteratively reweighted
/// Gauss–Newton), so a reflected or walled-off receiver several deviations off drops out instead
/// of dragging the point. The fit starts from whichever of the centroid and the receivers' places
/// (the nearest `startPlaces`) the levels agree with best, so one receiver reading far too strong
/// cannot capture the start.
/// The prior (`priorScale` of the receivers' median modelled distance, so a hall and a shed alike)
/// pulls toward the 1/d²-weighted centroid of the receivers,
/// each also weighted by how well it fits: where distances say little (two receivers, all far
/// away), the point stays between the receivers that agree.
public struct PositionFit: Sendable, Equatable {
    public var point: PlanePoint
    /// The plain RSSI-weighted centroid (all receivers, 1/d²).
    public var centroid: PlanePoint
    /// The same centroid with each receiver weighted by how well it fits too, at the fit's last step: the centre its
    /// prior pulls toward. Where levels fall faster than the model says, it keeps their order while the point runs off
    /// (`SightingFusion` gives it as the place when the point lies beyond the sentinels).
    public var trustedCentroid: PlanePoint
    /// Standard deviation of the point from the fit's information (trace of its covariance), metres, with no
    /// exponent steeper than `LocatorConfiguration.spreadExponentCap`.
    public var standardDeviation: Double
    /// What the radius is a multiple of, metres: the standard deviation, the disagreement between
    /// the fit and the plain centroid (a receiver the fit discounts pulls the centroid away), the
    /// model's own miss (`LocatorConfiguration.modelError`) and the receivers' own place accuracy, in
    /// quadrature. With the receivers at one place, their median distance stands in for the
    /// disagreement and the model's miss: the tag is somewhere around it. Levels that miss by more
    /// than assumed (`noiseScale`) widen the first two alike: noisier levels pull the fit and the
    /// centroid apart too. The model's miss is the model's, not the levels', and is not scaled.
    public var spread: Double

    /// How far the levels sit above the model, dB, fitted with the point when `offsetSpread` > 0: one
    /// tag's transmit power and one site's walls shift every receiver alike, and a point fitted with
    /// the wrong shift would be pushed toward or away from all of them at once.
    public var offset: Double
    /// How much larger the levels' misses are than their assumed shadowing, squared: the median
    /// squared residual (in standard deviations) over its value for normal noise, corrected for the
    /// three numbers fitted. Nil under five receivers, where the fit absorbs too much to tell.
    public var noiseRatio: Double?
    /// What the receivers' places span: from one place the point stays there; below a plane nothing is learnt from the fix.
    public var span: PlaceSpan
    /// How much farther than the fit's information says the levels still allow the tag (`LevelRegion`), which the
    /// standard deviation in the spread is multiplied by; 1 when not scanned.
    public var stretch: Double

    /// How many receivers' places, the nearest by their levels, the fit may start from beside the centroid. Each
    /// start costs a residual per receiver: trying all of a bus's 500 fixes of one bike (the most the server fuses)
    /// took about 7 ms an estimate, and a far receiver's place is not the best start where a dozen nearer ones are.
    static let startPlaces = 12

    /// Nil for no observations. `offsetSpread`: standard deviation, dB, of the prior on a common
    /// shift of every level (mean 0); 0 fits none. `noiseScale`: how much larger the levels' misses
    /// are than their shadowing says, as learnt over earlier fixes; it scales the spread, not the fit. `scanRegion`:
    /// stretch the spread to where the levels still allow the tag (`LevelRegion`).
    public static func fit(_ observations: [Observation], configuration: LocatorConfiguration, offsetSpread: Double = 0,
                           noiseScale: Double = 1, scanRegion: Bool = false) -> PositionFit? {
        let distances = observations.map(\.distance)
        guard let centroid = weightedCentroid(observations, distances: distances, nearestRange: configuration.nearestRange) else { return nil }
        let sigmas = zip(observations, distances).map { observation, distance in
            // A place known to ±a metres blurs the level by about a·(dB per metre) at the distance heard.
            let range = max(distance, configuration.nearestRange)
            let placeDB = 10 * observation.exponent / log(10) * observation.positionAccuracy / range
            return (observation.shadowing * observation.shadowing + placeDB * placeDB).squareRoot()
        }
        let near2 = configuration.nearestRange * configuration.nearestRange
        let c2 = configuration.outlierScale * configuration.outlierScale
        /// Residual in standard deviations, and its gradient, at `point` with every level shifted by `offset` dB.
        func residual(_ index: Int, at point: PlanePoint, offset: Double = 0) -> (value: Double, x: Double, y: Double) {
            let observation = observations[index]
            let dx = point.x - observation.position.x, dy = point.y - observation.position.y
            let rho2 = dx * dx + dy * dy + near2
            let predicted = observation.expectedLevel(squaredRange: rho2)
            // d(predicted)/d(point), per standard deviation.
            let g = -10 * observation.exponent / log(10) / rho2 / sigmas[index]
            return ((observation.level - predicted - offset) / sigmas[index], g * dx, g * dy)
        }
        func loss(at point: PlanePoint) -> Double {
            observations.indices.reduce(0) { sum, i in
                let r = residual(i, at: point).value
                return sum + log(1 + r * r / c2)
            }
        }
        let span = PlaceSpan(observations.map(\.position), within: configuration.nearestRange)
        // Each candidate's loss once: a comparator calling `loss` twice per comparison made the start cost 2N² residuals.
        var point = ([centroid] + starts(observations, distances: distances)).map { (place: $0, loss: loss(at: $0)) }.min { $0.loss < $1.loss }?.place ?? centroid
        var offset = 0.0
        let ranges = distances.sorted()
        let priorSpread = max(configuration.nearestRange, configuration.priorScale * ranges[ranges.count / 2])
        let priorInformation = 1 / (priorSpread * priorSpread)
        let offsetInformation = offsetSpread > 0 ? 1 / (offsetSpread * offsetSpread) : 0
        var weights = [Double](repeating: 1, count: observations.count)
        /// A residual's gradient over (x, y, offset), the slope's part times `flatter`.
        func gradient(_ i: Int, _ term: (value: Double, x: Double, y: Double), flatter: Double = 1) -> SIMD3<Double> {
            SIMD3(term.x * flatter, term.y * flatter, offsetSpread > 0 ? 1 / sigmas[i] : 0)
        }
        // The last step's residuals, which the spread is drawn from.
        var terms: [(value: Double, x: Double, y: Double)] = []
        var trustedCentroid = centroid
        // From one place the levels say how far, not which way: the point stays there. (Fitted, it ran off metres in
        // whichever direction the last bit of rounding gave a gradient.)
        for _ in 0..<(span == .point ? 0 : 20) {
            var a = Matrix3(diagonal: priorInformation, priorInformation, offsetInformation)
            terms.removeAll(keepingCapacity: true)
            for i in observations.indices {
                let r = residual(i, at: point, offset: offset)
                weights[i] = 1 / (1 + r.value * r.value / c2)
                terms.append(r)
            }
            let centre = weightedCentroid(observations, distances: distances, nearestRange: configuration.nearestRange, trust: weights) ?? centroid
            trustedCentroid = centre
            var b = SIMD3(-(point.x - centre.x) * priorInformation, -(point.y - centre.y) * priorInformation, -offset * offsetInformation)
            for (i, (weight, term)) in zip(weights, terms).enumerated() {
                let g = gradient(i, term)
                a.add(g, weight: weight)
                b += weight * term.value * g
            }
            guard let step = a.solve(b) else { break }
            point.x += step[0]
            point.y += step[1]
            offset += step[2]
            if step[0] * step[0] + step[1] * step[1] < 1e-6 && abs(step[2]) < 1e-3 { break }
        }
        // The fit's information at its last step with no exponent steeper than the cap: what the spread is drawn from. A
        // scanned region is held against the information at the exponents the cost has (`plain`), so a round cost stretches nothing.
        let scanning = scanRegion && span != .point
        var information = Matrix3(diagonal: priorInformation, priorInformation, offsetInformation), plain = information
        for (i, (weight, term)) in zip(weights, terms).enumerated() {
            let exponent = observations[i].exponent
            let flatter = exponent > configuration.spreadExponentCap ? configuration.spreadExponentCap / exponent : 1
            information.add(gradient(i, term, flatter: flatter), weight: weight)
            if scanning { plain.add(gradient(i, term), weight: weight) }
        }
        let variance = information.planeVariance ?? 2 / priorInformation
        var stretch = 1.0
        if scanning, let major = plain.planeMajorVariance {
            let region = LevelRegion(observations.indices.map { .init(observation: observations[$0], weight: weights[$0] / (sigmas[$0] * sigmas[$0])) },
                                     offsetInformation: offsetInformation, priorInformation: priorInformation, centre: trustedCentroid,
                                     nearestRange: configuration.nearestRange)
            // The prior alone bounds the region within a few of its spreads of the centre, beyond the farthest receiver's distance.
            stretch = region.stretch(from: point, gaussian90: (LevelRegion.chiSquare90 * major).squareRoot(),
                                     farthest: 2 * (ranges.last ?? 0) + point.distance(to: trustedCentroid))
        }
        var noiseRatio: Double?
        if observations.count >= 5 {
            let squares = observations.indices.map { i -> Double in
                let r = residual(i, at: point, offset: offset).value
                return r * r
            }.sorted()
            // 0.455: the median of a squared standard normal.
            noiseRatio = squares[squares.count / 2] / 0.455 * Double(observations.count) / Double(observations.count - 3)
        }
        let disagreement = span == .point ? RSSISummary.quantile(ranges, 0.5) : point.distance(to: centroid)
        let accuracy = observations.map(\.positionAccuracy).reduce(0, +) / Double(observations.count)
        // The levels less the learnt shift, read at no slope steeper than the cap: a steep one makes every distance short.
        let cappedRanges = observations.map { $0.distance(shiftedBy: offset, exponentAtMost: configuration.spreadExponentCap) }.sorted()
        let modelMiss = span == .point ? 0 : configuration.modelError * cappedRanges[cappedRanges.count / 2]
        let spread = ((variance * stretch * stretch + disagreement * disagreement) * noiseScale * noiseScale + modelMiss * modelMiss + accuracy * accuracy).squareRoot()
        return PositionFit(point: point, centroid: centroid, trustedCentroid: trustedCentroid, standardDeviation: variance.squareRoot(), spread: spread, offset: offset,
                           noiseRatio: noiseRatio, span: span, stretch: stretch)
    }

    /// The receivers' places the fit may start from, in their order: all, or the `startPlaces` nearest by `distances`.
    static func starts(_ observations: [Observation], distances: [Double]) -> [PlanePoint] {
        guard observations.count > startPlaces else { return observations.map(\.position) }
        return distances.indices.sorted { distances[$0] < distances[$1] }.prefix(startPlaces).sorted().map { observations[$0].position }
    }

    /// The receivers' places weighted by 1/d², d each one's modelled distance (`distances`, at least
    /// `nearestRange`; computed once by the caller, as the fit asks for a centroid every iteration), times
    /// `trust` when given: a Nadaraya–Watson centroid, as ESPresense-companion's. Nil for none, or when nothing is trusted.
    static func weightedCentroid(_ observations: [Observation], distances: [Double], nearestRange: Double, trust: [Double]? = nil) -> PlanePoint? {
        var sum = (x: 0.0, y: 0.0, weight: 0.0)
        for (index, observation) in observations.enumerated() {
            let range = max(distances[index], nearestRange)
            let weight = (trust?[index] ?? 1) / (range * range)
            sum.x += weight * observation.position.x
            sum.y += weight * observation.position.y
            sum.weight += weight
        }
        guard sum.weight > 0 else { return nil }
        return PlanePoint(x: sum.x / sum.weight, y: sum.y / sum.weight)
    }
}

/// A symmetric 3×3 information matrix over (x, y, offset). With no offset fitted its last row and
/// column are zero, and it is solved as the 2×2 it then is.
struct Matrix3 {
    var xx, xy, xo, yy, yo, oo: Double

    init(diagonal x: Double, _ y: Double, _ offset: Double) {
        (xx, xy, xo, yy, yo, oo) = (x, 0, 0, y, 0, offset)
    }

    /// Adds weight · g gᵀ.
    mutating func add(_ g: SIMD3<Double>, weight: Double) {
        xx += weight * g.x * g.x
        xy += weight * g.x * g.y
        xo += weight * g.x * g.z
        yy += weight * g.y * g.y
        yo += weight * g.y * g.z
        oo += weight * g.z * g.z
    }

    /// The inverse, by cofactors; nil when singular.
    var inverse: Matrix3? {
        guard oo > 0 else {
            let determinant = xx * yy - xy * xy
            guard determinant > 1e-300 else { return nil }
            var inverse = Matrix3(diagonal: yy / determinant, xx / determinant, 0)
            inverse.xy = -xy / determinant
            return inverse
        }
        let cxx = yy * oo - yo * yo, cxy = xo * yo - xy * oo, cxo = xy * yo - xo * yy
        let determinant = xx * cxx + xy * cxy + xo * cxo
        guard determinant > 1e-300 else { return nil }
        var inverse = Matrix3(diagonal: cxx / determinant, (xx * oo - xo * xo) / determinant, (xx * yy - xy * xy) / determinant)
        inverse.xy = cxy / determinant
        inverse.xo = cxo / determinant
        inverse.yo = (xy * xo - xx * yo) / determinant
        return inverse
    }

    /// m x = b; nil when singular.
    func solve(_ b: SIMD3<Double>) -> SIMD3<Double>? {
        guard let m = inverse else { return nil }
        return SIMD3(m.xx * b.x + m.xy * b.y + m.xo * b.z, m.xy * b.x + m.yy * b.y + m.yo * b.z, m.xo * b.x + m.yo * b.y + m.oo * b.z)
    }

    /// Variance of x plus variance of y, the offset marginalised: the plane's part of the inverse.
    var planeVariance: Double? {
        guard let m = inverse, m.xx > 0, m.yy > 0 else { return nil }
        return m.xx + m.yy
    }

    /// The variance along the plane's widest axis, the offset marginalised: the larger eigenvalue of the plane's part of the inverse.
    var planeMajorVariance: Double? {
        guard let m = inverse, m.xx > 0, m.yy > 0 else { return nil }
        let half = (m.xx - m.yy) / 2
        return (m.xx + m.yy) / 2 + (half * half + m.xy * m.xy).squareRoot()
    }
}
