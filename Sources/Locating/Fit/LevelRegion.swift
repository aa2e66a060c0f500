#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the levels still allow the tag, well beyond the fit's own spread (#44: a bike outside the sentinels that
/// heard it). With the tag's power unknown, a bike just inside a square of sentinels and one far outside it give about
/// the same differences between their levels, the outside one a few dB weaker overall: the fit takes the place its
/// prior favours, and its information, drawn at that place, knows nothing of the other.
///
/// So the cost the fit minimises (each level's miss at the fit's last weights, the common shift at its best for each
/// place, the prior) is scanned along `rays` rays from the fit's point, out to `farthest`. The farthest place within
/// the 90 % region (the cost at most χ²₂(0.9) above its least) over the 90 % extent the fit's information gives
/// (`gaussian90`) is how much the spread is stretched: about 1 where the cost is as round as the fit assumes.
struct LevelRegion {
    /// One level's part in the cost: its `weight` is the fit's last robust weight over its variance, dB⁻².
    struct Term {
        var observation: Observation
        var weight: Double
    }

    /// Rays scanned from the fit's point, evenly round.
    static let rays = 12
    /// Each ray's direction, as a unit step east and north: worked out once, not at every place scanned.
    static let directions = (0..<rays).map { ray in
        let angle = Double(ray) * 2 * .pi / Double(rays)
        return (x: cos(angle), y: sin(angle))
    }
    /// Each distance scanned along a ray is this many times the last.
    static let step = 1.25
    /// The first distance scanned, as a share of `gaussian90`: nearer in the region is as round as the fit says.
    static let nearest = 0.8
    /// At most this many levels are scanned, every n-th of more, each weighing n: all of a bus's 500 fixes took
    /// about 3 ms an estimate (`bikebeacon-bench fuse`, its largest window), where one estimate may take 1.
    static let mostTerms = 24
    /// χ² with two degrees of freedom at 0.9: the cost's rise at the edge of a 90 % region in the plane.
    static let chiSquare90 = 4.605

    let terms: [Term]
    /// Information of the prior on the common shift, dB⁻² (0: no shift fitted), and of the prior on the place, m⁻².
    let offsetInformation: Double
    let priorInformation: Double
    /// The centre the prior pulls toward.
    let centre: PlanePoint
    let nearestRange: Double

    init(_ terms: [Term], offsetInformation: Double, priorInformation: Double, centre: PlanePoint, nearestRange: Double) {
        let stride = (terms.count + Self.mostTerms - 1) / Self.mostTerms
        self.terms = stride <= 1 ? terms : Swift.stride(from: 0, to: terms.count, by: stride).map {
            Term(observation: terms[$0].observation, weight: terms[$0].weight * Double(stride))
        }
        self.offsetInformation = offsetInformation
        self.priorInformation = priorInformation
        self.centre = centre
        self.nearestRange = nearestRange
    }

    /// The cost with the tag at `point`: the weighted squared misses, the common shift taken at its best there.
    func cost(at point: PlanePoint) -> Double {
        var (total, sum, squares) = (offsetInformation, 0.0, 0.0)
        for term in terms {
            let miss = term.observation.level - term.observation.expectedLevel(at: point, nearestRange: nearestRange)
            total += term.weight
            sum += term.weight * miss
            squares += term.weight * miss * miss
        }
        let misses = offsetInformation > 0 ? squares - sum * sum / total : squares
        let dx = point.x - centre.x, dy = point.y - centre.y
        return misses + (dx * dx + dy * dy) * priorInformation
    }

    /// How many times `gaussian90` the farthest place within the 90 % region lies from `point`, scanned out to
    /// `farthest` metres; at least 1.
    func stretch(from point: PlanePoint, gaussian90: Double, farthest: Double) -> Double {
        guard gaussian90 > 0, gaussian90.isFinite, !terms.isEmpty else { return 1 }
        var least = cost(at: point)
        var scanned: [(distance: Double, cost: Double)] = []
        var distance = Self.nearest * gaussian90
        while distance < farthest {
            for direction in Self.directions {
                let cost = cost(at: PlanePoint(x: point.x + distance * direction.x, y: point.y + distance * direction.y))
                least = min(least, cost)
                scanned.append((distance, cost))
            }
            distance *= Self.step
        }
        let reach = scanned.filter { $0.cost - least <= Self.chiSquare90 }.map(\.distance).max() ?? 0
        return max(1, reach / gaussian90)
    }
}
