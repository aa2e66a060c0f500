import Proximity

/// How well any estimator that maps a level to a zone could do on a dataset: each stream's own
/// median RSSI, known in advance, with the two level thresholds (relative to measured power)
/// that maximise balanced accuracy on that very dataset.
///
/// No online filter knows a stream's median from its first reading, and thresholds fitted on
/// the data they are scored on are an oracle, so this bounds what a better filter or a better
/// boundary could still gain: the rest of the error is the receivers' fixed multipath at each
/// distance, which no level-based estimator sees.
public enum ThresholdCeiling {
    public struct Result: Sendable {
        public var balancedAccuracy: Double
        /// Level above which the ceiling says immediate, dB relative to measured power.
        public var immediateAbove: Double
        /// Level below which it says far, dB relative to measured power.
        public var farBelow: Double
    }

    /// Thresholds are searched on a `step` dB grid from −30 to +20 dB. Under two-point
    /// `calibration` each level is first put through its receiver's fitted model and expressed as
    /// the level n = 2 gives that distance: thresholds on the distance the calibration implies.
    public static func run(_ dataset: RSSIDataset, step: Double = 0.5, calibration: BenchCalibration = .onePoint) -> Result {
        // Scored rows per (true zone, level bin).
        let low = -30.0, bins = Int(50 / step) + 1
        var counts = [[Double]](repeating: [Double](repeating: 0, count: bins), count: 3)
        for receiver in dataset.receivers {
            let model = calibration.model(receiver)
            let scale = 2 / (model.exponent ?? 2)
            for stream in receiver.streams {
                guard let start = stream.times.first, let truth = zoneIndex(Zone(distance: stream.distance)), truth < 3 else { continue }
                let scored = stream.times.filter { $0 - start >= ProximityBench.warmUp }.count
                let level = (RSSIDatasets.median(stream.rssi) - model.measuredPower) * scale
                let bin = min(bins - 1, max(0, Int(((level - low) / step).rounded())))
                counts[truth][bin] += Double(scored)
            }
        }
        let totals = counts.map { $0.reduce(0, +) }
        // below[z][b]: rows of zone z in bins < b.
        let below = counts.map { row in row.reduce(into: [0.0]) { $0.append($0[$0.count - 1] + $1) } }
        var best = Result(balancedAccuracy: 0, immediateAbove: 0, farBelow: 0)
        for far in 0...bins {
            for immediate in far...bins {
                // far: bins < far; near: far ..< immediate; immediate: bins ≥ immediate.
                let recalls = (0..<3).compactMap { zone -> Double? in
                    guard totals[zone] > 0 else { return nil }
                    let right = switch zone {
                    case 0: totals[0] - below[0][immediate]
                    case 1: below[1][immediate] - below[1][far]
                    default: below[2][far]
                    }
                    return right / totals[zone]
                }
                let score = recalls.reduce(0, +) / Double(max(1, recalls.count))
                if score > best.balancedAccuracy {
                    best = Result(balancedAccuracy: score, immediateAbove: low + (Double(immediate) - 0.5) * step,
                                  farBelow: low + (Double(far) - 0.5) * step)
                }
            }
        }
        return best
    }
}
