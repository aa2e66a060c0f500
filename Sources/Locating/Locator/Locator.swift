import Proximity

/// One position estimate with radii that hold: the tag lies within `radius50` of the point half
/// the time and within `radius90` nine times in ten.
public struct Fix: Sendable, Equatable {
    public var time: Double
    public var point: PlanePoint
    public var radius50: Double
    public var radius90: Double
    /// How many receivers with a place contributed.
    public var receivers: Int
    /// Receivers heard in the window that have no place, so contributed nothing.
    public var unplaced: [String]

    public init(time: Double, point: PlanePoint, radius50: Double, radius90: Double, receivers: Int, unplaced: [String] = []) {
        self.time = time
        self.point = point
        self.radius50 = radius50
        self.radius90 = radius90
        self.receivers = receivers
        self.unplaced = unplaced
    }
}

/// Readings in, fixes out: `FixGrouping` makes the levels, `PositionFit` the point and its
/// spread, and each new point moves `smoothing` of the way from the previous one (a tag does not
/// jump; after a silence longer than the window it starts afresh). A moving tag's levels tell where
/// it was, not where it is, so the radius also grows with its speed. What one fix cannot tell, the
/// fixes so far can: a shift common to every level, each receiver's own shift from a model not
/// measured as its own (`ReceiverShifts`), the site's path-loss exponent (`SiteExponent`), and how
/// far the levels miss. Pure: time is an input.
public struct Locator: Sendable {
    public let receivers: [Receiver]
    public let configuration: LocatorConfiguration
    private var grouping: FixGrouping
    private var previous: Fix?
    /// The fits' points of the last `speedSpan` seconds, oldest first: how fast the tag moves.
    private var recent: [(time: Double, point: PlanePoint)] = []
    /// The levels' common shift learnt so far, dB, and from how many fixes: the tag and the site
    /// are the same from one fix to the next, so what one fix cannot tell, a run of them can.
    private var offset = (mean: 0.0, fixes: 0)
    /// Each receiver's own shift, learnt the same way: what the common one cannot take out.
    private var shifts: ReceiverShifts
    /// The site's path-loss exponent, learnt the same way, for the receivers not calibrated two-point.
    private var exponent: SiteExponent
    /// The levels' misses over their assumed shadowing, squared, learnt the same way: a site with
    /// more reflections than the ones the constants were chosen on widens every radius.
    private var noise = (ratio: 1.0, fixes: 0)
    /// The shift's prior before any fix: narrow only when every receiver was calibrated on site.
    private let initialOffsetSpread: Double

    public init(receivers: [Receiver], configuration: LocatorConfiguration = .init()) throws(LocatingError) {
        for receiver in receivers {
            let reach = -Receiver.farthest...Receiver.farthest
            if let position = receiver.position, !(reach.contains(position.x) && reach.contains(position.y)) { throw .position(receiver: receiver.id) }
            if let accuracy = receiver.positionAccuracy, !(0...Receiver.farthest).contains(accuracy) { throw .position(receiver: receiver.id) }
            switch receiver.calibration {
            case .none: break
            case .onePoint(let power):
                guard ProximityEstimator.isPlausible(rssi: power) else {
                    throw .calibration(receiver: receiver.id, reason: "RSSI at 1 m \(power) dBm must lie between -127 and 0 dBm")
                }
            case let .twoPoint(power, exponent):
                guard ProximityEstimator.isPlausible(rssi: power) else {
                    throw .calibration(receiver: receiver.id, reason: "RSSI at 1 m \(power) dBm must lie between -127 and 0 dBm")
                }
                guard ReceiverCalibration.plausibleExponents.contains(exponent) else {
                    throw .calibration(receiver: receiver.id, reason: "path-loss exponent \(exponent) must lie between \(ReceiverCalibration.plausibleExponents.lowerBound) and \(ReceiverCalibration.plausibleExponents.upperBound) (2 in free space)")
                }
            }
        }
        self.receivers = receivers
        self.configuration = configuration
        shifts = ReceiverShifts(receivers: receivers, configuration: configuration)
        exponent = SiteExponent(configuration: configuration)
        initialOffsetSpread = configuration.initialOffsetSpread(receivers.map(\.calibration))
        grouping = try FixGrouping(receivers: receivers.map(\.id), configuration: configuration)
    }

    /// Takes one reading; a fix when it completes one.
    public mutating func add(_ reading: Reading) throws(LocatingError) -> Fix? {
        guard let group = try grouping.add(reading) else { return nil }
        return locate(group)
    }

    /// The fix for one group of levels: nil when no receiver heard in it has a place.
    mutating func locate(_ group: FixGrouping.Group) -> Fix? {
        let unplaced = group.levels.compactMap { receivers[$0.receiver].position == nil ? receivers[$0.receiver].id : nil }
        // The receivers `observations` gives, in its order: the group's, those with a place.
        let placed = group.levels.map(\.receiver).filter { receivers[$0].position != nil }
        let siteExponent = exponent.value
        let observations = zip(placed, Self.observations(group, receivers: receivers, configuration: configuration)).map { index, observation in
            var shifted = observation
            shifted.rssiAt1m += offset.mean + shifts.shift(index)
            if receivers[index].calibration.measuredExponent == nil { shifted.exponent = siteExponent }
            return shifted
        }
        guard let fit = PositionFit.fit(observations, configuration: configuration, offsetSpread: offsetSpread, noiseScale: noiseScale) else { return nil }
        // Below a plane a weak tag and a far one look alike (`PlaceSpan`): a shift learnt there would take the distance for
        // the tag's power and shrink every later fix's radius (one philotuxo receiver alone: radius50 held 7 %).
        if fit.span == .plane { learn(from: fit, observations: observations, receivers: placed) }
        recent.removeAll { group.time - $0.time > configuration.speedSpan }
        recent.append((group.time, fit.point))
        let speed = configuration.speedSpan > 0 ? Motion(recent)?.speed ?? configuration.tagSpeed : 0
        let lag = speed * configuration.window / 2
        let spread = (fit.spread * fit.spread + lag * lag).squareRoot()
        var point = fit.point
        if let previous, group.time - previous.time <= configuration.window {
            point.x = previous.point.x + configuration.smoothing * (point.x - previous.point.x)
            point.y = previous.point.y + configuration.smoothing * (point.y - previous.point.y)
        }
        let scale = configuration.radiusScale(for: fit, receivers: observations.count)
        let fix = Fix(time: group.time, point: point, radius50: scale.radius50 * spread,
                      radius90: scale.radius90 * spread, receivers: observations.count, unplaced: unplaced)
        previous = fix
        return fix
    }

    /// What one fix teaches the next: each receiver's shift, the site's exponent, the common shift and how far the levels miss.
    private mutating func learn(from fit: PositionFit, observations: [Observation], receivers placed: [Int]) {
        var misses: [SiteExponent.Miss] = []
        for (index, observation) in zip(placed, observations) {
            let squaredRange = observation.squaredRange(to: fit.point, nearestRange: configuration.nearestRange)
            let miss = observation.level - observation.expectedLevel(squaredRange: squaredRange) - fit.offset
            shifts.learn(index, miss: miss)
            guard receivers[index].calibration.measuredExponent == nil else { continue }
            misses.append(.init(miss: miss, squaredRange: squaredRange, shadowing: observation.shadowing))
        }
        exponent.learn(misses, outlierScale: configuration.outlierScale)
        offset.fixes += 1
        offset.mean += fit.offset / Double(min(offset.fixes, configuration.offsetMemory))
        if let ratio = fit.noiseRatio {
            noise.fixes += 1
            noise.ratio += (ratio - noise.ratio) / Double(min(noise.fixes, configuration.offsetMemory))
        }
    }

    /// What the assumed shadowing is multiplied by: the learnt ratio, weighed against the assumption
    /// as if it had been seen `noisePrior` fixes.
    var noiseScale: Double {
        let seen = Double(noise.fixes), prior = configuration.noisePrior
        return ((prior + seen * noise.ratio) / (prior + seen)).squareRoot()
    }

    /// How far the common shift may still be from what was learnt, dB: wide at first when a receiver
    /// was never calibrated, narrowing to `offsetFloor` as fixes accumulate.
    var offsetSpread: Double {
        let learnt = Double(offset.fixes) / Double(configuration.offsetMemory)
        return (configuration.offsetFloor * configuration.offsetFloor + initialOffsetSpread * initialOffsetSpread / (1 + learnt)).squareRoot()
    }

    /// The observations of a group's placed receivers, through each one's calibration. A level older
    /// than the window is where the tag was up to `tagSpeed` × its age ago: its place counts as off by that.
    public static func observations(_ group: FixGrouping.Group, receivers: [Receiver], configuration: LocatorConfiguration) -> [Observation] {
        group.levels.compactMap { level in
            let receiver = receivers[level.receiver]
            guard let position = receiver.position else { return nil }
            let model = configuration.model(for: receiver.calibration)
            let place = receiver.positionAccuracy ?? 0
            let moved = level.age > configuration.window ? configuration.tagSpeed * level.age : 0
            return Observation(position: position, level: level.rssi, rssiAt1m: model.rssiAt1m, exponent: model.exponent,
                               shadowing: model.shadowing, positionAccuracy: (place * place + moved * moved).squareRoot())
        }
    }
}
