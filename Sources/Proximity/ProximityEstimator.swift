#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Settings that hold for every beacon a receiver hears.
///
/// One configuration for every receiver: the path-loss slopes and the zone switch probability
/// were chosen by leave-one-dataset-out on five sets of different receivers, tags and rooms
/// (`bench proximity`; every fold chose n = 1.5 beyond 1 m, 2 inside, 0.7). The rest are
/// physical or rate-independent: a window that holds enough readings at the slowest
/// advertising rate we support (0.1/s), shadowing of a few dB as every indoor BLE study
/// reports, and a change test at four standard errors.
public struct ProximityConfiguration: Sendable, Equatable {
    /// Log-distance path-loss exponent beyond 1 m. Default 1.5, under free space's 2: measured
    /// from a one-point calibration at 1 m, the five sets' 3 m boundary lies 5-8 dB under the
    /// 1 m level (13 dB in one), where n = 2 puts it at 9.5 dB. A site's own exponent comes
    /// from `bikebeacon calibrate` at two distances.
    public var pathLossExponent: Double
    /// Path-loss exponent inside 1 m (see `PathLossModel`). Default 2: the sets disagree most
    /// here (the best 0.5 m boundary lies 0-1 dB over the 1 m level for phones, 11 dB for
    /// AirTags), and the 6 dB that n = 2 gives is what every fold chose.
    public var nearFieldPathLossExponent: Double
    /// Added to every raw RSSI to correct this receiver's bias, dB.
    public var rxOffset: Double
    /// Measured power used when the frame carries none, dBm at 1 m.
    public var defaultMeasuredPower: Double
    /// With no reading for this long the zone becomes unknown, seconds.
    public var staleAfter: Double
    /// The median of the readings of this many seconds follows a moving beacon.
    public var window: Double
    /// Most readings kept per beacon in `window`; bounds memory at high advertising rates.
    public var windowCapacity: Int
    /// While the beacon stands still, the level is the median of this many seconds: four
    /// times fewer readings' noise than `window`, which keeps a bike parked on a zone boundary
    /// from wandering across it.
    public var stillWindow: Double
    /// Most readings kept per beacon in `stillWindow`.
    public var stillWindowCapacity: Int
    /// The beacon counts as moved when the `window` median leaves the `stillWindow` median by
    /// more than this many standard errors of their difference; the long window then starts
    /// again from the short one. The test runs on every reading, about 180 independent times an
    /// hour at any rate (one per 20 s window): at 3 σ a parked beacon would count as moved every
    /// couple of hours from Gaussian noise alone, at 4 σ once in about four days.
    public var moveThreshold: Double
    /// Spread of the level about the path-loss model at a fixed distance (log-normal
    /// shadowing: walls, bodies, antenna orientation), dB. Fixed while the beacon stands still.
    public var shadowing: Double
    /// Posterior probability that the true level lies beyond the reported zone's edge needed
    /// to leave that zone. 0.7 puts the edge 0.52 σ (about 3 dB) past the boundary: a parked
    /// bike's level does not wander that far, a walk crosses it in seconds.
    public var zoneSwitchProbability: Double
    /// RSSI spread assumed while the window holds too few readings to measure it, dB.
    public var defaultRSSISpread: Double
    /// Floor on the measured spread, dB: RSSI is reported in whole dB, so identical readings do
    /// not mean a perfectly known signal.
    public var minimumRSSISpread: Double

    public init(
        pathLossExponent: Double = 1.5,
        nearFieldPathLossExponent: Double = 2.0,
        rxOffset: Double = 0,
        defaultMeasuredPower: Double = -59,
        staleAfter: Double = 30,
        window: Double = 20,
        windowCapacity: Int = 256,
        stillWindow: Double = 120,
        stillWindowCapacity: Int = 512,
        moveThreshold: Double = 4,
        shadowing: Double = 6,
        zoneSwitchProbability: Double = 0.7,
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
        self.stillWindow = stillWindow
        self.stillWindowCapacity = stillWindowCapacity
        self.moveThreshold = moveThreshold
        self.shadowing = shadowing
        self.zoneSwitchProbability = zoneSwitchProbability
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
/// - Level: median RSSI (robust to fades and reflections, and time-based so any advertising
///   rate works) over the last `stillWindow` seconds while the beacon stands still, over the
///   last `window` seconds once their medians disagree beyond chance (it moved).
/// - Uncertainty: shadowing and the median's standard error (1.2533·σ/√N, σ from the MAD of
///   this beacon's own readings): the posterior of the true level.
/// - Distance: that level through `PathLossModel` (log-distance, its own slope inside 1 m),
///   held at the reported zone's edge while the zone holds against it (see `clamp`);
///   `distanceRange` is the level ± one sigma through the same model.
/// - Zone: `ZoneFilter` on the same level and posterior: the zone bands are the distance bands
///   mapped through the same model, so the zone and the distance shown agree within the
///   uncertainty; a parked beacon on a boundary keeps its zone, and the first zone is that of
///   the first level, which the next readings overturn if it was misleading.
/// - Staleness: nothing heard for `staleAfter` seconds → unknown, and the next reading starts afresh.
public struct ProximityEstimator: Sendable {
    public let configuration: ProximityConfiguration
    private var window: RSSIWindow
    private var stillWindow: RSSIWindow
    private var zoneFilter: ZoneFilter
    private var measuredPower: Double?
    private var lastTime: Double?
    private var last: ProximityEstimate?

    public init(configuration: ProximityConfiguration = .init()) {
        self.configuration = configuration
        window = RSSIWindow(span: configuration.window, capacity: configuration.windowCapacity)
        stillWindow = RSSIWindow(span: max(configuration.window, configuration.stillWindow), capacity: configuration.stillWindowCapacity)
        zoneFilter = ZoneFilter(switchProbability: configuration.zoneSwitchProbability)
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
                stillWindow.removeAll()
                zoneFilter.reset()
            } else {
                now = max(now, lastTime)
            }
        }
        if let measuredPower, measuredPower.isFinite { self.measuredPower = measuredPower }
        lastTime = now
        let reading = rssi + configuration.rxOffset
        window.append(time: now, rssi: reading)
        stillWindow.append(time: now, rssi: reading)
        // One reading's spread, measured on the longer window (more readings, and the same
        // receiver), sets the standard error of both medians.
        guard let still = stillWindow.statistics(), let shortMedian = window.median else { return estimate(at: now) }
        let spread = max(still.spread ?? configuration.defaultRSSISpread, configuration.minimumRSSISpread)
        var level = (median: still.median, standardError: Self.standardError(spread: spread, count: stillWindow.count))
        let recent = (median: shortMedian, standardError: Self.standardError(spread: spread, count: window.count))
        let difference = (recent.standardError * recent.standardError + level.standardError * level.standardError).squareRoot()
        if abs(recent.median - level.median) > configuration.moveThreshold * difference {
            // Moved: what the beacon read before says nothing about where it is now.
            stillWindow.removeAll(before: now - configuration.window)
            level = recent
        }

        let model = configuration.model(measuredPower: self.measuredPower ?? configuration.defaultMeasuredPower)
        let uncertainty = (configuration.shadowing * configuration.shadowing + level.standardError * level.standardError).squareRoot()
        let zone = zoneFilter.update(
            level: level.median,
            spread: uncertainty,
            immediateAbove: model.rssi(at: Zone.immediateLimit),
            farBelow: model.rssi(at: Zone.nearLimit)
        )
        let estimate = ProximityEstimate(
            time: now,
            filteredRSSI: level.median,
            distance: model.distance(rssi: Self.clamp(level.median, into: zone, immediateAbove: model.rssi(at: Zone.immediateLimit),
                                                      farBelow: model.rssi(at: Zone.nearLimit))),
            distanceUncertainty: abs(model.slope(rssi: level.median)) * uncertainty,
            zone: zone,
            readingDistance: model.distance(rssi: reading),
            model: model,
            distanceRange: model.distance(rssi: level.median + uncertainty)...model.distance(rssi: level.median - uncertainty)
        )
        last = estimate
        return estimate
    }

    /// The level nearest `level` inside `zone`'s band: the most likely level given the zone
    /// reported. While the zone holds against a level up to the switch margin past its edge, the
    /// distance shown stays at that edge, so it always lies in the zone shown.
    static func clamp(_ level: Double, into zone: Zone, immediateAbove: Double, farBelow: Double) -> Double {
        switch zone {
        case .immediate: max(level, immediateAbove)
        case .near: min(max(level, farBelow), immediateAbove)
        case .far: min(level, farBelow)
        case .unknown: level
        }
    }

    /// Standard error of the median of `count` readings spread by `spread` (1.2533·σ/√N).
    static func standardError(spread: Double, count: Int) -> Double {
        1.2533 * spread / Double(max(1, count)).squareRoot()
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
