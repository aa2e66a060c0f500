#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Locating

/// The anchors `bikebeacon-bench locate` compares the locator with, each given the same fixes
/// (receivers' levels and modelled distances) as the locator.
public enum LocateAnchor: String, CaseIterable, Sendable {
    /// Bermuda: the strongest receiver's place.
    case nearest
    /// Receivers' places weighted by 1/d² (ESPresense-companion's Nadaraya–Watson).
    case centroid
    /// ESPresense-companion's NelderMeadMultilateralizer.
    case nelderMead = "nelder-mead"
    /// Least squares on the ranges by Gauss–Newton.
    case gaussNewton = "gauss-newton"

    /// One receiver at one fix: its place in 3-D and the distance its level means.
    public struct Node: Sendable {
        public var x, y, z: Double
        public var distance: Double
        public init(x: Double, y: Double, z: Double, distance: Double) {
            self.x = x
            self.y = y
            self.z = z
            self.distance = distance
        }
    }

    /// The floor's box, metres (ESPresense's floor bounds).
    public struct Bounds: Sendable {
        public var lower: [Double]
        public var upper: [Double]
        public init(lower: [Double], upper: [Double]) {
            self.lower = lower
            self.upper = upper
        }
        func clamp(_ p: [Double]) -> [Double] { (0..<3).map { min(max(p[$0], lower[$0]), upper[$0]) } }
    }

    /// The anchor's point; `nodes` must not be empty.
    public func locate(_ nodes: [Node], bounds: Bounds) -> PlanePoint {
        let sorted = nodes.sorted { $0.distance < $1.distance }
        switch self {
        case .nearest:
            return PlanePoint(x: sorted[0].x, y: sorted[0].y)
        case .centroid:
            var sum = (x: 0.0, y: 0.0, w: 0.0)
            for node in sorted {
                let w = 1 / (max(node.distance, 0.5) * max(node.distance, 0.5))
                sum = (sum.x + w * node.x, sum.y + w * node.y, sum.w + w)
            }
            return PlanePoint(x: sum.x / sum.w, y: sum.y / sum.w)
        case .nelderMead, .gaussNewton:
            // ESPresense: with fewer than 3 nodes, the midpoint of the nearest two.
            guard sorted.count >= 3 else {
                let last = sorted[min(1, sorted.count - 1)]
                return PlanePoint(x: (sorted[0].x + last.x) / 2, y: (sorted[0].y + last.y) / 2)
            }
            let guess = bounds.clamp([(sorted[0].x + sorted[1].x) / 2, (sorted[0].y + sorted[1].y) / 2, (sorted[0].z + sorted[1].z) / 2])
            let p = self == .nelderMead ? Self.nelderMead(sorted, guess: guess, bounds: bounds) : Self.gaussNewton(sorted, guess: guess, bounds: bounds)
            return PlanePoint(x: p[0], y: p[1])
        }
    }

    /// Minimises over (x, y, z, scale): a penalty 5^(1+d) outside the box, (5(1−scale))², and
    /// the Gaussian-rank-weighted (σ 0.3, nearest first) mean of (|p − node|·scale − d)².
    static func nelderMead(_ nodes: [Node], guess: [Double], bounds: Bounds) -> [Double] {
        let sigma = 0.3, count = Double(nodes.count - 1)
        let weights = nodes.indices.map { i in
            let x = Double(i) / count
            return exp(-(x * x) / (2 * sigma * sigma)) / ((2 * Double.pi).squareRoot() * sigma)
        }
        let weightSum = weights.reduce(0, +)
        let lower = bounds.lower + [0.5], upper = bounds.upper + [1.5]
        func objective(_ p: [Double]) -> Double {
            var outside = 0.0
            for i in 0..<4 {
                let d = max(lower[i] - p[i], p[i] - upper[i], 0)
                outside += d * d
            }
            var value = outside > 0 ? pow(5, 1 + outside.squareRoot()) : 0
            value += (5 * (1 - p[3])) * (5 * (1 - p[3]))
            var sum = 0.0
            for (node, weight) in zip(nodes, weights) {
                let dx = p[0] - node.x, dy = p[1] - node.y, dz = p[2] - node.z
                let error = (dx * dx + dy * dy + dz * dz).squareRoot() * p[3] - node.distance
                sum += weight * error * error
            }
            return value + sum / weightSum
        }
        // Initial simplex: the guess, and one step along each axis toward the nearest three's centroid (scale by 5 %).
        let centre = (0..<3).map { axis in nodes.prefix(3).map { [$0.x, $0.y, $0.z][axis] }.reduce(0, +) / 3 }
        var toward = (0..<3).map { centre[$0] - guess[$0] }
        let norm = toward.map { $0 * $0 }.reduce(0, +).squareRoot()
        toward = toward.map { norm > 0 ? $0 / norm : 0.1 }
        let start = guess + [1.0]
        let perturbation = toward.map { abs($0) < 1e-3 ? 0.1 : $0 } + [0.05]
        let minimum = NelderMead.minimize(objective, start: start, steps: perturbation, tolerance: 1e-7, maxIterations: 10_000)
        return (0..<4).map { min(max(minimum[$0], lower[$0]), upper[$0]) }
    }

    /// Gauss–Newton on r_i = |p − node_i| − d_i, damped by 1e-3, kept inside the box, 100 steps at most.
    static func gaussNewton(_ nodes: [Node], guess: [Double], bounds: Bounds) -> [Double] {
        var p = guess
        for _ in 0..<100 {
            var a = [[Double]](repeating: [0, 0, 0], count: 3), b = [0.0, 0, 0]
            for node in nodes {
                let d = [p[0] - node.x, p[1] - node.y, p[2] - node.z]
                let range = max((d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).squareRoot(), 1e-6)
                let j = d.map { $0 / range }, r = range - node.distance
                for row in 0..<3 {
                    b[row] += j[row] * r
                    for column in 0..<3 { a[row][column] += j[row] * j[column] }
                }
            }
            for i in 0..<3 { a[i][i] += 1e-3 }
            guard let step = Self.solve3(a, b) else { break }
            p = bounds.clamp((0..<3).map { p[$0] - step[$0] })
            if step.map({ $0 * $0 }).reduce(0, +) < 1e-10 { break }
        }
        return p
    }

    /// Cramer's rule; nil when singular.
    static func solve3(_ a: [[Double]], _ b: [Double]) -> [Double]? {
        func det(_ m: [[Double]]) -> Double {
            m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
                + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
        }
        let d = det(a)
        guard abs(d) > 1e-12 else { return nil }
        return (0..<3).map { column in
            var m = a
            for row in 0..<3 { m[row][column] = b[row] }
            return det(m) / d
        }
    }
}

/// The downhill simplex (reflection 1, expansion 2, contraction ½, shrink ½), stopping when the
/// simplex's values differ by less than `tolerance` relative to their size.
enum NelderMead {
    static func minimize(_ f: ([Double]) -> Double, start: [Double], steps: [Double], tolerance: Double, maxIterations: Int) -> [Double] {
        let n = start.count
        var simplex = [start] + (0..<n).map { i in
            var vertex = start
            vertex[i] += steps[i]
            return vertex
        }
        var values = simplex.map(f)
        for _ in 0..<maxIterations {
            let order = values.indices.sorted { values[$0] < values[$1] }
            simplex = order.map { simplex[$0] }
            values = order.map { values[$0] }
            let best = values[0], worst = values[n]
            if 2 * abs(worst - best) <= tolerance * (abs(worst) + abs(best) + 1e-10) { break }
            let centroid = (0..<n).map { i in simplex[0..<n].map { $0[i] }.reduce(0, +) / Double(n) }
            func along(_ t: Double) -> [Double] { (0..<n).map { centroid[$0] + t * (simplex[n][$0] - centroid[$0]) } }
            let reflected = along(-1), reflectedValue = f(reflected)
            if reflectedValue < best {
                let expanded = along(-2), expandedValue = f(expanded)
                (simplex[n], values[n]) = expandedValue < reflectedValue ? (expanded, expandedValue) : (reflected, reflectedValue)
            } else if reflectedValue < values[n - 1] {
                (simplex[n], values[n]) = (reflected, reflectedValue)
            } else {
                let contracted = reflectedValue < worst ? along(-0.5) : along(0.5)
                let contractedValue = f(contracted)
                if contractedValue < min(reflectedValue, worst) {
                    (simplex[n], values[n]) = (contracted, contractedValue)
                } else {
                    for i in 1...n {
                        simplex[i] = (0..<n).map { simplex[0][$0] + 0.5 * (simplex[i][$0] - simplex[0][$0]) }
                        values[i] = f(simplex[i])
                    }
                }
            }
        }
        return simplex[values.indices.min { values[$0] < values[$1] } ?? 0]
    }
}
