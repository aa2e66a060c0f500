import Proximity

/// Leave-one-dataset-out: how the estimator's configuration generalises to data it was not
/// chosen on, which is what a new receiver, phone or room will be.
///
/// For each dataset, a configuration is chosen among `candidates` on the other datasets alone
/// (the one with the largest worst-case balanced-accuracy margin over the best anchor, among
/// those flapping no more than the least-flapping anchor when any does), then scored on the
/// dataset left out.
public enum LeaveOneOut {
    /// One candidate's standing on one dataset, relative to that dataset's anchors.
    public struct Standing: Sendable {
        public var configuration: ProximityConfiguration
        public var score: ProximityBench.Score
        /// Balanced accuracy minus the best anchor's, fraction.
        public var margin: Double
        /// Flaps per hour over the least-flapping anchor's.
        public var flapRatio: Double
    }

    public struct Fold: Sendable {
        public var heldOut: String
        public var chosen: ProximityConfiguration
        public var standing: Standing
        public var bestAnchor: ProximityMethod
        public var bestAnchorAccuracy: Double
        public var fewestFlapsAnchor: ProximityMethod
        public var fewestFlaps: Double
    }

    /// The configurations the folds choose from: the two path-loss slopes, which move the zone
    /// boundaries, and the zone switch probability, which sets how far past a boundary the level
    /// must go. The rest are physical or rate-independent and stay fixed. A slope of 1.5 beyond
    /// 1 m is below free space, but the per-dataset ceilings put the near/far edge 5-8 dB under
    /// the 1 m level, where 2.0 puts it at 9.5 dB: the folds may pick it only if it holds on the
    /// datasets they did not see.
    public static let candidates: [ProximityConfiguration] = [1.0, 1.5, 2.0].flatMap { near in
        [1.5, 2.0, 2.5].flatMap { far in
            [0.6, 0.7, 0.8].map { switching in
                ProximityConfiguration(pathLossExponent: far, nearFieldPathLossExponent: near, zoneSwitchProbability: switching)
            }
        }
    }

    /// The folds, and the same rule applied to every dataset at once.
    public struct Outcome: Sendable {
        public var folds: [Fold]
        /// The rule's choice on all the datasets: what the product should ship.
        public var chosenOnAll: ProximityConfiguration
        /// That choice's worst margin over the datasets it was chosen on: no candidate that flaps
        /// no more than the anchors does better on all of them at once, even fitted to them, so
        /// a target above it is out of this family's reach.
        public var worstMarginOnAll: Double
    }

    /// Under two-point `calibration` each receiver's fitted exponent replaces the candidates'
    /// (and the anchors' that have one), so the folds choose the rest.
    public static func run(_ datasets: [RSSIDataset], candidates: [ProximityConfiguration] = candidates,
                           calibration: BenchCalibration = .onePoint) -> Outcome {
        let anchorMethods = ProximityMethod.anchors
        let anchors = datasets.map { ProximityBench.run($0, methods: anchorMethods, calibration: calibration) }
        let standings: [[Standing]] = datasets.indices.map { d in
            let best = anchors[d].map(\.total.balancedAccuracy).max() ?? 0
            let fewest = anchors[d].map(\.total.flapsPerHour).min() ?? 0
            return candidates.map { configuration in
                let score = ProximityBench.run(datasets[d], methods: [.ours], configuration: configuration, calibration: calibration)[0].total
                return Standing(configuration: configuration, score: score, margin: score.balancedAccuracy - best,
                                flapRatio: fewest > 0 ? score.flapsPerHour / fewest : (score.flapsPerHour > 0 ? .infinity : 1))
            }
        }
        func worstMargin(_ c: Int, on training: [Int]) -> Double { training.map { standings[$0][c].margin }.min() ?? 0 }
        /// The candidate with the largest worst-case margin on `training`, among those flapping no
        /// more than the least-flapping anchor there when any does.
        func choose(on training: [Int]) -> Int {
            let calm = candidates.indices.filter { c in training.allSatisfy { standings[$0][c].flapRatio <= 1 } }
            let pool = calm.isEmpty ? Array(candidates.indices) : calm
            return pool.max { worstMargin($0, on: training) < worstMargin($1, on: training) } ?? 0
        }
        let folds = datasets.indices.map { heldOut in
            let chosen = choose(on: datasets.indices.filter { $0 != heldOut })
            let best = anchors[heldOut].max { $0.total.balancedAccuracy < $1.total.balancedAccuracy }
            let fewest = anchors[heldOut].min { $0.total.flapsPerHour < $1.total.flapsPerHour }
            return Fold(
                heldOut: datasets[heldOut].name, chosen: candidates[chosen], standing: standings[heldOut][chosen],
                bestAnchor: best?.method ?? .rawLogDistance, bestAnchorAccuracy: best?.total.balancedAccuracy ?? .nan,
                fewestFlapsAnchor: fewest?.method ?? .rawLogDistance, fewestFlaps: fewest?.total.flapsPerHour ?? .nan
            )
        }
        let all = choose(on: Array(datasets.indices))
        return Outcome(folds: folds, chosenOnAll: candidates[all], worstMarginOnAll: worstMargin(all, on: Array(datasets.indices)))
    }
}
