import Proximity

/// Scores zone estimators on constant-distance RSSI streams, as issue 2 defines it.
///
/// Every estimator starts fresh on each stream. Rows in the first `warmUp` seconds of a stream
/// are not scored (every filter needs some readings). Over the scored rows:
/// - balanced accuracy: mean recall over the zones present in the ground truth;
/// - accuracy: share of rows whose zone is right (`unknown` is always wrong);
/// - flaps per hour: zone changes between consecutive scored rows, per hour of scored stream time.
public enum ProximityBench {
    public static let warmUp = 10.0

    /// Counts of (true zone, reported zone) and zone changes.
    public struct Score: Sendable {
        /// `counts[truth][reported]`, indexed by `zoneIndex`.
        public var counts = [[Int]](repeating: [Int](repeating: 0, count: 4), count: 3)
        public var changes = 0
        public var seconds = 0.0

        public init() {}

        public mutating func add(_ other: Score) {
            for truth in 0..<3 { for reported in 0..<4 { counts[truth][reported] += other.counts[truth][reported] } }
            changes += other.changes
            seconds += other.seconds
        }

        /// Recall of one true zone; nil when that zone never occurs.
        public func recall(_ zone: Zone) -> Double? {
            guard let truth = zoneIndex(zone), truth < 3 else { return nil }
            let total = counts[truth].reduce(0, +)
            return total > 0 ? Double(counts[truth][truth]) / Double(total) : nil
        }

        public var balancedAccuracy: Double {
            let recalls = [Zone.immediate, .near, .far].compactMap(recall)
            return recalls.isEmpty ? .nan : recalls.reduce(0, +) / Double(recalls.count)
        }

        public var accuracy: Double {
            let total = counts.joined().reduce(0, +)
            return total > 0 ? Double((0..<3).map { counts[$0][$0] }.reduce(0, +)) / Double(total) : .nan
        }

        public var flapsPerHour: Double { seconds > 0 ? Double(changes) / (seconds / 3600) : .nan }
    }

    public struct Result: Sendable {
        public var method: ProximityMethod
        public var total: Score
        /// Per receiver, in dataset order.
        public var receivers: [(name: String, score: Score)]
    }

    /// Scores `methods` on `dataset`; `ours` runs with `configuration`, its exponent replaced by
    /// the receiver's fitted one under two-point `calibration`.
    public static func run(_ dataset: RSSIDataset, methods: [ProximityMethod] = ProximityMethod.allCases,
                           configuration: ProximityConfiguration = .init(), calibration: BenchCalibration = .onePoint) -> [Result] {
        methods.map { method in
            score(dataset, method: method, calibration: calibration) { power, exponent in
                guard method == .ours else { return method.makeEstimator(measuredPower: power, exponent: exponent) }
                var calibrated = configuration
                if let exponent { calibrated.pathLossExponent = exponent }
                return OurEstimator(measuredPower: power, configuration: calibrated)
            }
        }
    }

    static func score(_ dataset: RSSIDataset, method: ProximityMethod, calibration: BenchCalibration,
                      makeEstimator: (Double, Double?) -> any ZoneEstimating) -> Result {
        var total = Score()
        var receivers: [(String, Score)] = []
        for receiver in dataset.receivers {
            var score = Score()
            let model = calibration.model(receiver)
            for stream in receiver.streams {
                var estimator = makeEstimator(model.measuredPower, model.exponent)
                score.add(Self.score(stream, with: &estimator))
            }
            receivers.append((receiver.name, score))
            total.add(score)
        }
        return Result(method: method, total: total, receivers: receivers)
    }

    /// Runs one fresh estimator over one stream.
    public static func score(_ stream: RSSIStream, with estimator: inout any ZoneEstimating) -> Score {
        var score = Score()
        guard let start = stream.times.first, let truth = zoneIndex(Zone(distance: stream.distance)) else { return score }
        var previous: Zone?
        var firstScored: Double?
        var lastScored = 0.0
        for (time, rssi) in zip(stream.times, stream.rssi) {
            let zone = estimator.zone(time: time, rssi: rssi)
            guard time - start >= warmUp, let reported = zoneIndex(zone) else { continue }
            score.counts[truth][reported] += 1
            if let previous, previous != zone { score.changes += 1 }
            previous = zone
            if firstScored == nil { firstScored = time }
            lastScored = time
        }
        if let firstScored { score.seconds = lastScored - firstScored }
        return score
    }
}

/// Row/column of a zone in `Score.counts`.
func zoneIndex(_ zone: Zone) -> Int? {
    switch zone {
    case .immediate: 0
    case .near: 1
    case .far: 2
    case .unknown: 3
    }
}
