#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Settings that hold for every beacon a receiver hears.
///
/// One configuration for every receiver: the path-loss slopes were chosen by leave-one-dataset-out
/// on herald and pcng (`bench proximity`), the rest are physical or rate-independent: a window
/// that holds enough readings at the slowest advertising rate we support (0.1/s), shadowing of
/// a few dB as every indoor BLE study reports, and an hour between zone changes of a parked bike.
public struct ProximityConfiguration: Sendable, Equatable {
    /// Log-distance path-loss exponent beyond 1 m: 2 in free space, higher indoors.
    public var pathLossExponent: Double
    /// Path-loss exponent inside 1 m (see `PathLossModel`).
    public var nearFieldPathLossExponent: Double
    /// Added to every raw RSSI to correct this receiver's bias, dB.
    public var rxOffset: Double
    /// Measured power used when the frame carries none, dBm at 1 m.
    public var defaultMeasuredPower: Double
    /// With no reading for this long the zone becomes unknown, seconds.
    public var staleAfter: Double
    /// The median is taken over the readings of this many seconds.
    public var window: Double
    /// Most readings kept per beacon; bounds memory at high advertising rates.
    public var windowCapacity: Int
    /// Spread of the filtered RSSI about the path-loss model at a fixed distance (log-normal
    /// shadowing: walls, bodies, antenna orientation), dB.
    public var shadowing: Double
    /// Expected zone changes per second: the zone filter's switching probability. Small, so
    /// a zone changes on lasting evidence, never on a moment's.
    public var zoneSwitchRate: Double
    /// Filtered values closer together than this share their evidence, seconds. A median
    /// shares most of its readings with the medians of the last few seconds, so counting each
    /// as fresh evidence would let one noisy stretch flip the zone; a quarter of the window
    /// keeps a parked bike's zone while a walk still changes it within about half a minute.
    public var evidenceInterval: Double
    /// Share of observations taken as meaningless whatever they say.
    public var outlierShare: Double
    /// Posterior probability a new zone needs before it is reported.
    public var zoneDecisionProbability: Double
    /// RSSI spread assumed while the window holds too few readings to measure it, dB.
    public var defaultRSSISpread: Double
    /// Floor on the measured spread, dB: RSSI is reported in whole dB, so identical readings do
    /// not mean a perfectly known signal.
    public var minimumRSSISpread: Double

    public init(
        pathLossExponent: Double = 2.0,
        nearFieldPathLossExponent: Double = 1.0,
        rxOffset: Double = 0,
        defaultMeasuredPower: Double = -59,
        staleAfter: Double = 30,
        window: Double = 20,
        windowCapacity: Int = 256,
        shadowing: Double = 6,
        zoneSwitchRate: Double = 1.0 / 3600,
        evidenceInterval: Double = 5,
        outlierShare: Double = 0.05,
        zoneDecisionProbability: Double = 0.9,
        defaultRSSISpread: Double = 6,
        minimumRSSISpread: Double = 1
    ) {
        self.pathLossExponent = pathLossExponent
        self.nearFieldPathLossExponent = nearFieldPathLossExponent
        self.rxOffset = rxOffset
        self.defaultMeasuredPower = defaultMeasuredPower
        self.staleAfter = staleAfter
        self.window = window
        self.windowCapacity = windowCapacity
        self.shadowing = shadowing
        self.zoneSwitchRate = zoneSwitchRate
        self.evidenceInterval = evidenceInterval
        self.outlierShare = outlierShare
        self.zoneDecisionProbability = zoneDecisionProbability
        self.defaultRSSISpread = defaultRSSISpread
        self.minimumRSSISpread = minimumRSSISpread
    }

    /// The model for a beacon advertising `measuredPower` at 1 m.
    public func model(measuredPower: Double) -> PathLossModel {
        PathLossModel(measuredPower: measuredPower, exponent: pathLossExponent, nearFieldExponent: nearFieldPathLossExponent)
    }
}

/// Turns one beacon's readings into a filtered RSSI, a distance and a zone. Pure: time is an input.
///
/// - Input: impossible readings (RSSI ≥ 0 dBm, or −127 and below, which controllers use for
///   "no value") are dropped.
/// - Filter: median RSSI over the last `window` seconds (robust to fades and reflections, and
///   time-based so any advertising rate works).
/// - Distance: `PathLossModel` (log-distance, its own slope inside 1 m).
/// - Uncertainty: shadowing and the median's standard error (1.2533·σ/√N, σ from the MAD of
///   this beacon's own readings), carried through the model.
/// - Zone: `ZoneFilter`, a Bayes filter over the zones: the first reading only opens the
///   posterior, so one misleading reading cannot hold the zone, and a parked beacon on a
///   boundary keeps its zone.
/// - Staleness: nothing heard for `staleAfter` seconds → unknown, and the next reading starts afresh.
public struct ProximityEstimator: Sendable {
    public let configuration: ProximityConfiguration
    private var window: RSSIWindow
    private var zoneFilter: ZoneFilter
    private var measuredPower: Double?
    private var lastTime: Double?
    private var last: ProximityEstimate?

    public init(configuration: ProximityConfiguration = .init()) {
        self.configuration = configuration
        window = RSSIWindow(span: configuration.window, capacity: configuration.windowCapacity)
        zoneFilter = ZoneFilter(settings: .init(
            switchRate: configuration.zoneSwitchRate,
            evidenceInterval: configuration.evidenceInterval,
            outlierShare: configuration.outlierShare,
            decisionProbability: configuration.zoneDecisionProbability
        ))
    }

    /// Whether a raw reading can be a real signal strength.
    public static func isPlausible(rssi: Double) -> Bool {
        rssi.isFinite && rssi < 0 && rssi > -127
    }

    /// Feeds one reading. Non-finite and impossible values are ignored. A reading up to a second
    /// older than the previous one is taken as arriving with it (receivers reorder a little); a
    /// bigger step back means the clock was set back, and the estimate starts afresh, as it
    /// does after staleness.
    public mutating func update(time: Double, rssi: Double, measuredPower: Double?) -> ProximityEstimate {
        guard time.isFinite, Self.isPlausible(rssi: rssi) else { return estimate(at: lastTime ?? 0) }
        var now = time
        if let lastTime {
            if now - lastTime > configuration.staleAfter || now < lastTime - Self.reorderTolerance {
                window.removeAll()
                zoneFilter.reset()
            } else {
                now = max(now, lastTime)
            }
        }
        if let measuredPower, measuredPower.isFinite { self.measuredPower = measuredPower }
        lastTime = now
        let reading = rssi + configuration.rxOffset
        window.append(time: now, rssi: reading)
        guard let statistics = window.statistics() else { return estimate(at: now) }

        let model = configuration.model(measuredPower: self.measuredPower ?? configuration.defaultMeasuredPower)
        let spread = max(statistics.spread ?? configuration.defaultRSSISpread, configuration.minimumRSSISpread)
        let standardError = 1.2533 * spread / Double(window.count).squareRoot()
        let uncertainty = (configuration.shadowing * configuration.shadowing + standardError * standardError).squareRoot()
        let zone = zoneFilter.update(
            time: now,
            level: statistics.median,
            spread: uncertainty,
            immediateAbove: model.rssi(at: Zone.immediateLimit),
            farBelow: model.rssi(at: Zone.nearLimit)
        )
        let estimate = ProximityEstimate(
            time: now,
            filteredRSSI: statistics.median,
            distance: model.distance(rssi: statistics.median),
            distanceUncertainty: abs(model.slope(rssi: statistics.median)) * uncertainty,
            zone: zone,
            readingDistance: model.distance(rssi: reading)
        )
        last = estimate
        return estimate
    }

    /// How far back a reading may be stamped and still count as merely reordered, seconds.
    static let reorderTolerance = 1.0

    /// The estimate as it stands at `time`: the last one, or unknown once it has gone stale.
    /// It carries no reading of its own.
    public func estimate(at time: Double) -> ProximityEstimate {
        guard let last, let lastTime, time - lastTime <= configuration.staleAfter else {
            return ProximityEstimate(time: time, filteredRSSI: last?.filteredRSSI, distance: nil, distanceUncertainty: nil, zone: .unknown)
        }
        var aged = last
        aged.time = time
        aged.readingDistance = nil
        return aged
    }

    /// Log-distance model with one slope: metres at which `rssi` is expected.
    public static func distance(rssi: Double, measuredPower: Double, pathLossExponent: Double) -> Double {
        PathLossModel(measuredPower: measuredPower, exponent: pathLossExponent, nearFieldExponent: pathLossExponent).distance(rssi: rssi)
    }

    /// Log-distance model with one slope: RSSI expected at `distance` metres.
    public static func rssi(at distance: Double, measuredPower: Double, pathLossExponent: Double) -> Double {
        PathLossModel(measuredPower: measuredPower, exponent: pathLossExponent, nearFieldExponent: pathLossExponent).rssi(at: distance)
    }
}
