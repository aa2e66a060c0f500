#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Locating

/// City-scale fusing (#44 goal 5): a synthetic city of fixed sentinels on a square grid, missing
/// bikes parked among them, sightings arriving at a steady rate; each sighting fuses its bike's
/// sightings of the last 5 minutes into one estimate (`SightingFusion`), as the server does for
/// each sighting that notifies. The baseline, in the same run on the same input, keeps the same
/// windows and takes the loudest sentinel's place (what a pin per sighting costs), so the ratio
/// is the fusing's own price. Levels follow the default model (or `exponent`) with 6 dB of shadowing; each
/// estimate is scored against the bike's true place, so a fast but wrong fuse would show. With
/// `riddenSpeed`, every bike is ridden instead, and the same estimates are also made keeping the
/// whole window (`parked`), as if bikes never moved. With `handover`, a parked bike is heard by one
/// of its four sentinels at a time, the next round taking over every so many seconds: the case
/// most likely to pass for a ride, so the share of estimates said to be on the move is the price.
/// With `beyond`, every bike is parked outside the city, heard only by sentinels on one side of it.
public enum FusionBench {
    public struct Setup: Sendable {
        public var seconds: Int
        public var sightingsPerSecond: Int
        public var sentinels: Int
        public var bikes: Int
        /// The server's window, seconds (`SightingEstimates.window`).
        public var window: Double
        public var spacing: Double
        public var seed: UInt64
        /// m/s: each bike ridden in a straight line from its place, turning back at the city's edge; nil: parked.
        public var riddenSpeed: Double?
        /// Seconds: a bike is heard by one of its four sentinels at a time, the next round taking over
        /// after this long (a sentinel falling silent and its neighbour hearing on); nil: any of the four each time.
        public var handover: Double?
        /// How steeply the levels fall with distance (dB per decade ÷ 10): the default model's 1.5, or a street's
        /// steeper slope that the uncalibrated sentinels' model does not know.
        public var exponent: Double
        /// Metres: every bike parked this far beyond the city's southern edge (and up to 10 m further), heard by the four
        /// sentinels nearest it, all on one side of it; nil: among its four.
        public var beyond: Double?

        public init(seconds: Int = 60, sightingsPerSecond: Int = 100, sentinels: Int = 10_000, bikes: Int = 1_000,
                    window: Double = 300, spacing: Double = 100, seed: UInt64 = 44, riddenSpeed: Double? = nil, handover: Double? = nil,
                    exponent: Double = LocatorConfiguration().defaultExponent, beyond: Double? = nil) {
            self.seconds = seconds
            self.sightingsPerSecond = sightingsPerSecond
            self.sentinels = sentinels
            self.bikes = bikes
            self.window = window
            self.spacing = spacing
            self.seed = seed
            self.riddenSpeed = riddenSpeed
            self.handover = handover
            self.exponent = exponent
            self.beyond = beyond
        }
    }

    public struct Result: Sendable {
        public var setup: Setup
        public var estimates: Int
        /// User plus system CPU seconds for all estimates: fusing, and the baseline's loudest sentinel.
        public var fuseCPU: Double
        public var baselineCPU: Double
        /// Sightings in a bike's window at an estimate, on average.
        public var meanWindow: Double
        /// The slowest single estimate, seconds of this thread's CPU: the wall clock also counts the
        /// time the scheduler gave other processes, which on a busy machine is most of a slow one.
        public var slowest: Double
        /// The slowest estimate's own cost: the whole run replayed and timed again, each estimate's
        /// lesser time of the two, the slowest of those. Thread CPU still counts the interrupts served
        /// while an estimate ran, and the first estimate pays for the process's first touch of the
        /// code: those, not the work, made a `slowest` that moved from 0.4 to 1.7 ms between runs, and
        /// they seldom strike one estimate twice.
        public var slowestOwn: Double
        /// Error of the estimates against the bikes' true places, metres, and the share within radius90 / radius50.
        public var medianError: Double
        public var baselineMedianError: Double
        public var inside90: Double
        public var inside50: Double
        /// Share of the estimates that say the bike is on the move (`FusedEstimate.speed`).
        public var onTheMove: Double
        /// With `riddenSpeed`: the same estimates keeping every sighting of the window.
        public var wholeWindow: (medianError: Double, inside90: Double, inside50: Double)?

        /// Share of one core the fusing takes at this input rate.
        public var coreShare: Double { fuseCPU / Double(setup.seconds) }
        public var baselineCoreShare: Double { baselineCPU / Double(setup.seconds) }
    }

    struct Heard {
        var bike: Int
        /// Where the bike is when heard.
        var truth: PlanePoint
        var sighting: FusionSighting
    }

    public static func run(_ setup: Setup) -> Result {
        var random = SplitMix64(seed: setup.seed)
        let side = max(1, Int(Double(setup.sentinels).squareRoot().rounded()))
        let extent = Double(side - 1) * setup.spacing
        let frame = LocalFrame(latitude: 52.09, longitude: 5.12)
        let bikes = (0..<setup.bikes).map { _ in
            let x = Double.random(in: 0...extent, using: &random)
            return PlanePoint(x: x, y: setup.beyond.map { -$0 - Double.random(in: 0...10, using: &random) } ?? Double.random(in: 0...extent, using: &random))
        }
        let headings = (0..<setup.bikes).map { _ in Double.random(in: 0..<(2 * .pi), using: &random) }
        let phases = setup.handover == nil ? [] : (0..<setup.bikes).map { _ in Double.random(in: 0..<4, using: &random) }
        /// The four sentinels around a bike, in turn round the square.
        let corners = [(0, 0), (1, 0), (1, 1), (0, 1)]
        /// Folds a coordinate back into the city, as a rider turning back at its edge.
        func inside(_ value: Double) -> Double {
            guard extent > 0 else { return 0 }
            let folded = value.truncatingRemainder(dividingBy: 2 * extent)
            let positive = folded < 0 ? folded + 2 * extent : folded
            return positive > extent ? 2 * extent - positive : positive
        }
        func place(_ bike: Int, at time: Double) -> PlanePoint {
            guard let speed = setup.riddenSpeed else { return bikes[bike] }
            return PlanePoint(x: inside(bikes[bike].x + speed * time * cos(headings[bike])), y: inside(bikes[bike].y + speed * time * sin(headings[bike])))
        }
        // The input, made before any clock runs: each sighting by one of the four sentinels around its bike.
        let count = setup.seconds * setup.sightingsPerSecond
        let input = (0..<count).map { index -> Heard in
            let bike = Int.random(in: 0..<setup.bikes, using: &random)
            let time = Double(index) / Double(setup.sightingsPerSecond)
            let truth = place(bike, at: time)
            let corner = setup.handover.map { corners[Int(time / $0 + phases[bike]) % 4] }
                ?? (Int.random(in: 0...1, using: &random), Int.random(in: 0...1, using: &random))
            // The square of four sentinels around the bike, or nearest it when it is beyond the city.
            let column = min(side - 1, max(0, min(side - 2, Int((truth.x / setup.spacing).rounded(.down)))) + corner.0)
            let row = min(side - 1, max(0, min(side - 2, Int((truth.y / setup.spacing).rounded(.down)))) + corner.1)
            let place = PlanePoint(x: Double(column) * setup.spacing, y: Double(row) * setup.spacing)
            let coordinates = frame.coordinates(of: place)
            let rssi = level(metres: place.distance(to: truth), exponent: setup.exponent, &random)
            return Heard(bike: bike, truth: truth, sighting: FusionSighting(sentinel: "s\(row * side + column)", time: time, latitude: coordinates.latitude,
                                                                           longitude: coordinates.longitude, rssi: rssi))
        }

        var windowTotal = 0
        var baselineErrors: [Double] = []
        let baselineStart = ProcessCPU.ownSeconds()
        replay(input, bikes: setup.bikes, window: setup.window) { heard, history, now in
            guard let loudest = history.max(by: { $0.rssi < $1.rssi }), let lat = loudest.latitude, let lon = loudest.longitude else { return }
            baselineErrors.append(frame.point(latitude: lat, longitude: lon).distance(to: heard.truth))
            windowTotal += history.count
        }
        let baselineCPU = ProcessCPU.ownSeconds() - baselineStart

        var took: [Double] = []
        let fuseStart = ProcessCPU.ownSeconds()
        let fused = score(input, setup: setup, frame: frame, parked: false) { took.append($0) }
        let fuseCPU = ProcessCPU.ownSeconds() - fuseStart
        var again: [Double] = []
        replay(input, bikes: setup.bikes, window: setup.window) { _, history, now in
            again.append(timed { _ = SightingFusion.fuse(history, now: now, window: setup.window) })
        }
        let wholeWindow = setup.riddenSpeed.map { _ in score(input, setup: setup, frame: frame, parked: true) { _ in } }
        return Result(setup: setup, estimates: fused.estimates, fuseCPU: fuseCPU, baselineCPU: baselineCPU,
                      meanWindow: Double(windowTotal) / Double(max(1, count)),
                      slowest: took.max() ?? 0, slowestOwn: zip(took, again).map { min($0, $1) }.max() ?? 0,
                      medianError: fused.medianError, baselineMedianError: median(baselineErrors),
                      inside90: fused.inside90, inside50: fused.inside50, onTheMove: fused.onTheMove,
                      wholeWindow: wholeWindow.map { ($0.medianError, $0.inside90, $0.inside50) })
    }

    /// The largest window the server fuses (`SightingFusion.mostSightings`) of a bike parked at `frame`'s origin, in two
    /// kinds: every sighting a bus's own GPS fix, five buses passing the bike (each fix its own observation, the most
    /// work), and every sighting from its own fixed sentinel, within 100 m of it either way; the levels falling as `exponent` says.
    public static func largestWindows(seed: UInt64 = 1, exponent: Double = Setup().exponent)
        -> (roaming: [FusionSighting], fixed: [FusionSighting], frame: LocalFrame) {
        var random = SplitMix64(seed: seed)
        let frame = LocalFrame(latitude: 52.09, longitude: 5.12)
        func level(_ place: PlanePoint) -> Double {
            FusionBench.level(metres: place.distance(to: PlanePoint(x: 0, y: 0)), exponent: exponent, &random)
        }
        let roaming = (0..<SightingFusion.mostSightings).map { index -> FusionSighting in
            let bus = index % 5, along = Double(index / 5 % 100) - 50
            let place = PlanePoint(x: along, y: Double(bus) * 12 - 24 + 3 * gaussian(&random))
            let coordinates = frame.coordinates(of: place)
            return FusionSighting(sentinel: "bus\(bus)", time: Double(index) * 0.5, latitude: coordinates.latitude, longitude: coordinates.longitude,
                                  accuracy: 8, rssi: level(place))
        }
        let fixed = (0..<SightingFusion.mostSightings).map { index -> FusionSighting in
            let place = PlanePoint(x: Double.random(in: -100...100, using: &random), y: Double.random(in: -100...100, using: &random))
            let coordinates = frame.coordinates(of: place)
            return FusionSighting(sentinel: "s\(index)", time: Double(index) * 0.5, latitude: coordinates.latitude, longitude: coordinates.longitude,
                                  rssi: level(place))
        }
        return (roaming, fixed, frame)
    }

    /// A sentinel's level `metres` from a bike (at least 1), whole dBm: the default model's −59 dBm at 1 m falling as
    /// `exponent` says, with 6 dB of shadowing, within what a scanner reports.
    static func level(metres: Double, exponent: Double, _ random: inout SplitMix64) -> Double {
        max(-105, min(-30, -59 - 10 * exponent * log10(max(1, metres)) + 6 * gaussian(&random))).rounded()
    }

    /// Thread CPU seconds of one estimate over each of `largestWindows`, the least of `runs`.
    public static func largestWindow(runs: Int, window: Double = Setup().window) -> (roaming: Double, fixed: Double) {
        let windows = largestWindows()
        func least(_ sightings: [FusionSighting]) -> Double {
            let now = sightings.map(\.time).max() ?? 0
            return (0..<runs).map { _ in timed { _ = SightingFusion.fuse(sightings, now: now, window: window) } }.min() ?? .nan
        }
        return (least(windows.roaming), least(windows.fixed))
    }

    /// Every sighting's estimate scored against where its bike is; `took` gets each one's thread CPU seconds.
    static func score(_ input: [Heard], setup: Setup, frame: LocalFrame, parked: Bool,
                      took: (Double) -> Void) -> (estimates: Int, medianError: Double, inside90: Double, inside50: Double, onTheMove: Double) {
        var errors: [Double] = [], inside90 = 0, inside50 = 0, moving = 0
        replay(input, bikes: setup.bikes, window: setup.window) { heard, history, now in
            var estimate: FusedEstimate?
            let seconds = timed { estimate = SightingFusion.fuse(history, now: now, window: setup.window, parked: parked) }
            took(seconds)
            guard let estimate else { return }
            let error = frame.point(latitude: estimate.latitude, longitude: estimate.longitude).distance(to: heard.truth)
            errors.append(error)
            if error <= estimate.radius90 { inside90 += 1 }
            if error <= estimate.radius50 { inside50 += 1 }
            if estimate.speed != nil { moving += 1 }
        }
        let estimates = Double(max(1, errors.count))
        return (errors.count, median(errors), Double(inside90) / estimates, Double(inside50) / estimates, Double(moving) / estimates)
    }

    /// Each sighting in turn, with its bike's sightings of the last `window` seconds (itself included).
    static func replay(_ input: [Heard], bikes: Int, window: Double, _ body: (Heard, [FusionSighting], Double) -> Void) {
        var histories = [[FusionSighting]](repeating: [], count: bikes)
        for heard in input {
            let now = heard.sighting.time
            histories[heard.bike].removeAll { $0.time <= now - window }
            histories[heard.bike].append(heard.sighting)
            body(heard, histories[heard.bike], now)
        }
    }

    /// Thread CPU seconds `body` takes.
    static func timed(_ body: () -> Void) -> Double {
        let started = threadCPUSeconds()
        body()
        return threadCPUSeconds() - started
    }

    /// CPU seconds this thread has run.
    static func threadCPUSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    static func gaussian(_ random: inout SplitMix64) -> Double {
        let u = Double.random(in: Double.ulpOfOne..<1, using: &random), v = Double.random(in: 0..<1, using: &random)
        return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }

    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return .nan }
        return values.sorted()[values.count / 2]
    }
}
