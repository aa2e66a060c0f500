import Foundation

/// Settings that hold for every beacon a receiver hears.
///
/// The defaults are not tuned to any data set: they are the free-space path-loss model, a window
/// that holds enough readings at the slowest advertising rate we support (0.1/s), and hysteresis
/// sized by the evidence itself (see `zoneConfidence`).
public struct ProximityConfiguration: Sendable, Equatable {
    /// Log-distance path-loss exponent: 2 in free space, higher indoors.
    public var pathLossExponent: Double
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
    /// A new zone must hold this long before it is reported, seconds.
    public var zoneDwell: Double
    /// Leaving a zone needs the filtered RSSI past the boundary by this many standard errors.
    public var zoneConfidence: Double
    /// RSSI spread assumed while the window holds too few readings to measure it, dB.
    public var defaultRSSISpread: Double
    /// Floor on the measured spread, dB: RSSI is reported in whole dB, so identical readings do
    /// not mean a perfectly known signal.
    public var minimumRSSISpread: Double

    public init(
        pathLossExponent: Double = 2.0,
        rxOffset: Double = 0,
        defaultMeasuredPower: Double = -59,
        staleAfter: Double = 30,
        window: Double = 20,
        windowCapacity: Int = 256,
        zoneDwell: Double = 10,
        zoneConfidence: Double = 2,
        defaultRSSISpread: Double = 6,
        minimumRSSISpread: Double = 1
    ) {
        self.pathLossExponent = pathLossExponent
        self.rxOffset = rxOffset
        self.defaultMeasuredPower = defaultMeasuredPower
        self.staleAfter = staleAfter
        self.window = window
        self.windowCapacity = windowCapacity
        self.zoneDwell = zoneDwell
        self.zoneConfidence = zoneConfidence
        self.defaultRSSISpread = defaultRSSISpread
        self.minimumRSSISpread = minimumRSSISpread
    }
}

/// Turns one beacon's readings into a filtered RSSI, a distance and a zone. Pure: time is an input.
///
/// - Filter: median RSSI over the last `window` seconds (robust to fades and reflections, and
///   time-based so any advertising rate works).
/// - Distance: log-distance model, d = 10^((measuredPower − rssi) / (10·n)).
/// - Uncertainty: standard error of that median (1.2533·σ/√N, σ from the MAD), carried through
///   the model. It is the filter's statistical uncertainty; multipath bias comes on top.
/// - Zone: hysteresis whose margin is `zoneConfidence` standard errors, plus a dwell time; so
///   sparse, noisy evidence holds the zone and plentiful, clean evidence moves it quickly.
/// - Staleness: nothing heard for `staleAfter` seconds → unknown, and the next reading starts afresh.
public struct ProximityEstimator: Sendable {
    public let configuration: ProximityConfiguration
    private var window: RSSIWindow
    private var hysteresis: ZoneHysteresis
    private var measuredPower: Double?
    private var lastTime: Double?
    private var last: ProximityEstimate?

    public init(configuration: ProximityConfiguration = .init()) {
        self.configuration = configuration
        window = RSSIWindow(span: configuration.window, capacity: configuration.windowCapacity)
        hysteresis = ZoneHysteresis(dwell: configuration.zoneDwell)
    }

    /// Feeds one reading. Non-finite values are ignored. A reading up to a second older than the
    /// previous one is taken as arriving with it (receivers reorder a little); a bigger step back
    /// means the clock was set back, and the estimate starts afresh, as it does after staleness.
    public mutating func update(time: Double, rssi: Double, measuredPower: Double?) -> ProximityEstimate {
        guard time.isFinite, rssi.isFinite else { return estimate(at: lastTime ?? 0) }
        var now = time
        if let lastTime {
            if now - lastTime > configuration.staleAfter || now < lastTime - Self.reorderTolerance {
                window.removeAll()
                hysteresis.reset()
            } else {
                now = max(now, lastTime)
            }
        }
        if let measuredPower, measuredPower.isFinite { self.measuredPower = measuredPower }
        lastTime = now
        window.append(time: now, rssi: rssi + configuration.rxOffset)
        guard let statistics = window.statistics() else { return estimate(at: now) }

        let n = configuration.pathLossExponent
        let power = self.measuredPower ?? configuration.defaultMeasuredPower
        let spread = max(statistics.spread ?? configuration.defaultRSSISpread, configuration.minimumRSSISpread)
        let standardError = 1.2533 * spread / Double(window.count).squareRoot()
        let distance = Self.distance(rssi: statistics.median, measuredPower: power, pathLossExponent: n)
        let zone = hysteresis.update(
            time: now,
            rssi: statistics.median,
            immediateAbove: Self.rssi(at: Zone.immediateLimit, measuredPower: power, pathLossExponent: n),
            farBelow: Self.rssi(at: Zone.nearLimit, measuredPower: power, pathLossExponent: n),
            margin: configuration.zoneConfidence * standardError
        )
        let estimate = ProximityEstimate(
            time: now,
            filteredRSSI: statistics.median,
            distance: distance,
            distanceUncertainty: distance * log(10) / (10 * n) * standardError,
            zone: zone
        )
        last = estimate
        return estimate
    }

    /// How far back a reading may be stamped and still count as merely reordered, seconds.
    static let reorderTolerance = 1.0

    /// The estimate as it stands at `time`: the last one, or unknown once it has gone stale.
    public func estimate(at time: Double) -> ProximityEstimate {
        guard let last, let lastTime, time - lastTime <= configuration.staleAfter else {
            return ProximityEstimate(time: time, filteredRSSI: last?.filteredRSSI, distance: nil, distanceUncertainty: nil, zone: .unknown)
        }
        var aged = last
        aged.time = time
        return aged
    }

    /// Log-distance model: metres at which `rssi` is expected.
    public static func distance(rssi: Double, measuredPower: Double, pathLossExponent: Double) -> Double {
        pow(10, (measuredPower - rssi) / (10 * pathLossExponent))
    }

    /// Log-distance model: RSSI expected at `distance` metres.
    public static func rssi(at distance: Double, measuredPower: Double, pathLossExponent: Double) -> Double {
        measuredPower - 10 * pathLossExponent * log10(distance)
    }
}
