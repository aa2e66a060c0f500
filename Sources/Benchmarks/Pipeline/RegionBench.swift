import Foundation
import Beacon
import Proximity
import Regions

/// Enter/exit timing of the region monitor on the philotuxo tracks, against ground truth
/// (inside = within R m of the sensor by `dist3d_m`) and against baselines run in the same pass.
///
/// Every (track, sensor) stream is one beacon heard by one sentinel. All methods share one
/// measured power and default settings: no per-stream tuning.
public enum RegionBench {
    public enum Method: String, CaseIterable, Sendable {
        /// ProximityEstimator then RegionMonitor: the pipeline bikebeacon runs. (The monitor
        /// filters each reading's own distance, so feeding it raw readings is the same method.)
        case estimatorMonitor = "estimator + monitor"
        /// No filter, no monitor: inside while the latest raw distance is within R.
        case rawInstant = "raw distance, instant"
        /// ESPresense's occupancy rule (design §5), its 2 m / 4 m thresholds scaled to R:
        /// enter closer than 2R/3, exit farther than 4R/3.
        case espresense = "ESPresense occupancy"
    }

    public struct Transition: Equatable, Sendable {
        public var time: Double
        public var entered: Bool
        public init(time: Double, entered: Bool) {
            self.time = time
            self.entered = entered
        }
    }

    /// How one method did over all streams.
    public struct Score: Sendable {
        public var truthEnters = 0
        public var truthExits = 0
        public var enterLatencies: [Double] = []
        public var exitLatencies: [Double] = []
        public var spuriousEnters = 0
        public var spuriousExits = 0
        public var missedEnters: Int { truthEnters - enterLatencies.count }
        public var missedExits: Int { truthExits - exitLatencies.count }
        /// Every way the method disagreed with the truth, in one number.
        public var errors: Int { missedEnters + missedExits + spuriousEnters + spuriousExits }

        mutating func add(_ other: Score) {
            truthEnters += other.truthEnters
            truthExits += other.truthExits
            enterLatencies += other.enterLatencies
            exitLatencies += other.exitLatencies
            spuriousEnters += other.spuriousEnters
            spuriousExits += other.spuriousExits
        }
    }

    /// A predicted transition matches a true one of the same kind from this long before it…
    public static let earlyTolerance = 5.0
    /// …to this long after it.
    public static let lateTolerance = 30.0
    /// True transitions this close to the end of a recording are not scored: the recording
    /// stops, not the beacon, so no method could confirm them.
    public static let tailExcluded = 15.0
    /// Ticks between readings, seconds: exits are detected this finely.
    public static let tickStep = 0.25

    /// The region a sentinel would configure for "within R m": the `near` zone when R is its
    /// 3 m limit, otherwise a distance limit of R.
    public static func region(radius: Double) -> Region {
        let beacon = syntheticBeacon
        return radius == Zone.nearLimit
            ? Region(name: "within \(radius) m", beacon: beacon, requiredZone: .near)
            : Region(name: "within \(radius) m", beacon: beacon, maximumDistance: radius)
    }

    static let syntheticBeacon = BeaconID(uuid: UUID(uuid: (0xE7, 0x8F, 0x13, 0x56, 0x24, 0xCE, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)), major: 1, minor: 1)

    /// True transitions: changes of `distance <= radius` between consecutive samples, plus an
    /// entry at the first sample when the stream starts inside (a monitor starts outside).
    public static func groundTruth(_ samples: [PhilotuxoTracks.Sample], radius: Double) -> [Transition] {
        var transitions: [Transition] = []
        var inside = false
        for sample in samples {
            let now = sample.distance <= radius
            if now != inside { transitions.append(Transition(time: sample.time, entered: now)) }
            inside = now
        }
        return transitions
    }

    /// Transitions one method reports for one stream.
    public static func predict(_ samples: [PhilotuxoTracks.Sample], method: Method, radius: Double, measuredPower: Double,
                               proximity: ProximityConfiguration = .init(),
                               monitorConfiguration: RegionMonitorConfiguration = .init()) -> [Transition] {
        let region = region(radius: radius)
        let beacon = syntheticBeacon
        var estimator = ProximityEstimator(configuration: proximity)
        var monitor = RegionMonitor(regions: [region], configuration: monitorConfiguration)
        var transitions: [Transition] = []
        var instantInside = false
        var occupancy = ESPresenseOccupancy(measuredPower: measuredPower, enterDistance: radius * 2 / 3, exitDistance: radius * 4 / 3)
        var clock = samples.first?.time ?? 0

        func record(_ events: [RegionEvent]) {
            for event in events {
                switch event {
                case let .entered(_, _, time): transitions.append(Transition(time: time, entered: true))
                case let .exited(_, _, time, _): transitions.append(Transition(time: time, entered: false))
                case .stillInside: break
                }
            }
        }

        for sample in samples {
            switch method {
            case .estimatorMonitor:
                while clock + tickStep < sample.time {
                    clock += tickStep
                    record(monitor.tick(at: clock))
                }
                clock = sample.time
                record(monitor.observe(beacon, estimator.update(time: sample.time, rssi: sample.rssi, measuredPower: measuredPower)))
            case .rawInstant:
                let distance = rawDistance(sample.rssi, measuredPower: measuredPower, proximity: proximity)
                let inside = distance <= radius
                if inside != instantInside { transitions.append(Transition(time: sample.time, entered: inside)) }
                instantInside = inside
            case .espresense:
                let inside = occupancy.update(time: sample.time, rssi: sample.rssi + proximity.rxOffset)
                if inside != instantInside { transitions.append(Transition(time: sample.time, entered: inside)) }
                instantInside = inside
            }
        }
        return transitions
    }

    /// The log-distance model applied to one reading, no smoothing.
    static func rawDistance(_ rssi: Double, measuredPower: Double, proximity: ProximityConfiguration) -> Double {
        proximity.model(measuredPower: measuredPower).distance(rssi: rssi + proximity.rxOffset)
    }

    /// Matches predictions to truth greedily in time order; each prediction is used once.
    public static func score(truth: [Transition], predicted: [Transition], end: Double) -> Score {
        var score = Score()
        var used = Array(repeating: false, count: predicted.count)
        for t in truth where t.time <= end - tailExcluded {
            if t.entered { score.truthEnters += 1 } else { score.truthExits += 1 }
            let match = predicted.indices.first { i in
                !used[i] && predicted[i].entered == t.entered
                    && predicted[i].time >= t.time - earlyTolerance && predicted[i].time <= t.time + lateTolerance
            }
            guard let match else { continue }
            used[match] = true
            let latency = predicted[match].time - t.time
            if t.entered { score.enterLatencies.append(latency) } else { score.exitLatencies.append(latency) }
        }
        for i in predicted.indices where !used[i] && predicted[i].time <= end - tailExcluded {
            if predicted[i].entered { score.spuriousEnters += 1 } else { score.spuriousExits += 1 }
        }
        return score
    }

    public struct Result: Sendable {
        public var radius: Double
        public var streams: Int
        public var scores: [(method: Method, score: Score)]
    }

    public static func run(streams: [PhilotuxoTracks.Stream], radius: Double, measuredPower: Double = -59) -> Result {
        let scores = Method.allCases.map { method in
            var total = Score()
            for stream in streams {
                guard let end = stream.samples.last?.time else { continue }
                let truth = groundTruth(stream.samples, radius: radius)
                let predicted = predict(stream.samples, method: method, radius: radius, measuredPower: measuredPower)
                total.add(score(truth: truth, predicted: predicted, end: end))
            }
            return (method: method, score: total)
        }
        return Result(radius: radius, streams: streams.count, scores: scores)
    }

    /// Nearest-rank percentile of `values` (0…100); nil when empty.
    public static func percentile(_ values: [Double], _ p: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(sorted.count - 1, max(0, rank - 1))]
    }
}
