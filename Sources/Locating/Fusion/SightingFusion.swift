import Proximity

/// One sentinel's sighting of a bike as the server holds it: where the sentinel was, how strongly it heard.
public struct FusionSighting: Sendable, Equatable {
    public var sentinel: String
    /// When the sentinel says it heard the bike, seconds on the sentinel's clock.
    public var time: Double
    /// How far `time` is off the server's clock, seconds, when known: the offset of the clock the
    /// sentinel stamped with (its own, only while within two minutes of the server's; beyond, it
    /// stamps by the server's, and this is 0). The sighting is placed in time by the server's clock,
    /// so a clock off by minutes does not land in the wrong window.
    public var clockOffset: Double?
    /// Degrees, WGS 84; nil when the sentinel had no place (a roaming one with no fix). A fix whose
    /// accuracy is beyond `Receiver.farthest` counts as no place too.
    public var latitude: Double?
    public var longitude: Double?
    /// The GPS fix's horizontal accuracy, metres; nil for a fixed sentinel's enrolled place.
    public var accuracy: Double?
    public var rssi: Double
    public var calibration: ReceiverCalibration
    /// Heard by a home sentinel of someone other than the reader: the estimate is shown no finer than its grid.
    public var othersHome: Bool

    public init(sentinel: String, time: Double, clockOffset: Double? = nil, latitude: Double?, longitude: Double?, accuracy: Double? = nil,
                rssi: Double, calibration: ReceiverCalibration = .none, othersHome: Bool = false) {
        self.sentinel = sentinel
        self.time = time
        self.clockOffset = clockOffset
        self.latitude = latitude
        self.longitude = longitude
        self.accuracy = accuracy
        self.rssi = rssi
        self.calibration = calibration
        self.othersHome = othersHome
    }

    /// Where the sentinel was, when it knew.
    var place: (latitude: Double, longitude: Double)? {
        guard let latitude, let longitude, (accuracy ?? 0) <= Receiver.farthest else { return nil }
        return (latitude, longitude)
    }

    /// The sighting's time on the server's clock.
    public var serverTime: Double { time - (clockOffset ?? 0) }
}

/// One estimate of where a bike is from all its sightings in a window.
public struct FusedEstimate: Sendable, Equatable {
    public var latitude: Double
    public var longitude: Double
    public var radius50: Double
    public var radius90: Double
    /// The sentinels that contributed, sorted.
    public var sources: [String]
    /// Sentinels heard in the window with no place: they contributed nothing.
    public var unplaced: [String]
    /// Drawn on another owner's home sentinel: show it to others no finer than that sentinel's grid.
    public var othersHome: Bool
    /// Metres a second, when the fixed sentinels' places drift one way (`SightingFusion.onTheMove`);
    /// nil when the bike is parked, or too few of them heard it to tell.
    public var speed: Double?
}

/// Fuses a bike's sightings of the last `window` seconds (server time) into one estimate. Pure.
///
/// A fixed sentinel heard several times counts once, at the median of its levels; each of a
/// roaming sentinel's sightings counts at its own GPS fix, with that fix's accuracy, so passes
/// by a parked bike add up. The places are put into local metres around the first one
/// (`LocalFrame`) and fitted by `PositionFit`: the place is its point, or the centroid it trusts where its point runs off
/// beyond the sentinels (`among`), and the radii are the locator's. A bike carried off is
/// where it was heard last: one on the move keeps only its newest sightings (`onTheMove`), and
/// otherwise sightings from before it last moved are left out (`sinceLastMove`).
public enum SightingFusion {
    /// How fast a bike may have been carried between two sightings, m/s (a van on a motorway).
    /// Two sentinels too far apart to hear it from one spot, further apart than this allows in the
    /// time between them, contradict each other rather than show a move: both stay, and the radius grows.
    public static let fastestMove = 40.0

    /// How often a parked bike's estimate may say it is on the move: the places of the sentinels
    /// around it make a slope of their own. Twice its standard error, the margin before, passed for
    /// motion in one estimate in seven of `bikebeacon-bench fuse`'s parked city.
    public static let movingFalseAlarm = 0.01

    /// The most sightings the server fuses into one estimate, the window's newest: each is a residual
    /// in every step of the fit, and a bus's fixes each count on their own.
    public static let mostSightings = 500

    /// `parked` keeps every sighting of the window, as if the bike never moved (a baseline for the bench).
    public static func fuse(_ sightings: [FusionSighting], now: Double, window: Double,
                            configuration: LocatorConfiguration = .init(), parked: Bool = false) -> FusedEstimate? {
        let recent = sightings.filter {
            $0.serverTime > now - window && $0.serverTime <= now && ProximityEstimator.isPlausible(rssi: $0.rssi)
        }
        let unplaced = Set(recent.filter { $0.place == nil }.map(\.sentinel))
        guard let origin = recent.lazy.compactMap(\.place).first else { return nil }
        let frame = LocalFrame(latitude: origin.latitude, longitude: origin.longitude)
        let inWindow = recent.compactMap { Heard($0, frame: frame, configuration: configuration) }
        guard let newest = inWindow.max(by: { $0.sighting.serverTime < $1.sighting.serverTime }) else { return nil }
        let moving = parked ? nil : onTheMove(inWindow, newest: newest, now: now)
        let heard = moving?.heard ?? (parked ? inWindow : sinceLastMove(inWindow, newest: newest))
        let placed = heard.map(\.sighting)
        // Fixed sentinels (no accuracy) by sentinel and place; each roaming fix on its own. Each group holds indices
        // into `heard`, in the order first heard.
        var groupOf: [GroupKey: Int] = Dictionary(minimumCapacity: heard.count)
        var groups: [[Int]] = []
        for (index, one) in heard.enumerated() {
            let sighting = one.sighting
            let key = sighting.accuracy == nil ? GroupKey.fixed(sighting.sentinel, sighting.latitude ?? 0, sighting.longitude ?? 0) : .roaming(index)
            if let group = groupOf[key] {
                groups[group].append(index)
            } else {
                groupOf[key] = groups.count
                groups.append([index])
            }
        }
        let observations = groups.map { group -> Observation in
            let first = heard[group[0]]
            let model = configuration.model(for: first.sighting.calibration)
            return Observation(position: first.point, level: RSSISummary.quantile(group.map { heard[$0].sighting.rssi }.sorted(), 0.5),
                               rssiAt1m: model.rssiAt1m, exponent: model.exponent, shadowing: model.shadowing,
                               positionAccuracy: first.sighting.accuracy ?? 0)
        }
        // A common shift of every level is fitted with the point, as a locator's first fix fits it: where levels fall
        // faster than the default model's (a street's exponent of 2 against 1.5), every uncalibrated sentinel reads the
        // bike as farther than it is, and without the shift the fit ran off to where all of them agree, beyond the
        // sentinels (`bikebeacon-bench fuse --exponent 2`: the fit's point 149 m off, with the shift 76; a bus's 500 fixes,
        // up to 90 m), and the trust it gives each sentinel with it.
        let offsetSpread = configuration.initialOffsetSpread(heard.map(\.sighting.calibration))
        // The fit's spread stretched to where else the levels allow the bike (`LevelRegion`): sentinels are seldom all round
        // a bike, and one parked outside those that heard it reads as a weaker tag inside them (`--beyond 100`: radius90
        // held 67 %, then 85 % (90 % since radius90 is drawn at 93 %); `--beyond 50`, 89 → 91 %; every other city row
        // within a point but a ride at a street's slope, radius50 61 → 66 %; on philotuxo's real rows radius50 86 → 92 %).
        // The locator's fits are not scanned: its receivers surround its tags, and there it gained nothing
        // (`docs/benchmarks.md`).
        guard let fit = PositionFit.fit(observations, configuration: configuration, offsetSpread: offsetSpread, scanRegion: true) else { return nil }
        // The place is the fit's point while it lies among the sentinels (within the box their places span east–west
        // and north–south), else the centroid the fit trusts. A few sentinels round a bike, each 50–140 m off, leave a
        // shift and the distances nearly one unknown: where levels fall faster than the model says, the point ran off
        // beyond them all, while the centroid keeps the levels' order. `bikebeacon-bench fuse`, median error, the fit's
        // point / the trusted centroid / this: exponent 2, 76.1 / 19.9 / 19.8 m; 2.5, 253.1 / 18.0 / 17.8; at the model's
        // 1.5, 20.9 / 20.9 / 20.3; handed over every 150 s, 37.8 / 40.7 / 37.6; ridden at 5 m/s, 71.0 / 72.2 / 70.8;
        // philotuxo's real rows, 2.26 / 2.25 / 2.21 m, no track worse than the fit's point. (The convex hull instead of
        // the box: 2.24 m, one track behind the loudest receiver's place.)
        let point = Self.among(fit.point, observations.map(\.position)) ? fit.point : fit.trustedCentroid
        let place = frame.coordinates(of: point)
        // Sentinels that disagree (one bike heard loud by two a kilometre apart, minutes apart in the window): the fit
        // discounts them alike and keeps the point between them, so its spread says nothing of them. The point lies
        // outside what their levels say by up to `miss` metres, and the radius grows by it.
        // Its twin: every sentinel hears the bike farther off than the point is, by at least `short` metres. A bike parked
        // outside the sentinels that heard it reads so, and the fit's prior and the common shift keep its point among
        // them (`bikebeacon-bench fuse --beyond 100`: radius90 held 46 %, now 67 %; `--beyond 50`, 87 → 89 %; the parked,
        // handed-over and ridden rows moved by 2 points at most). From one place its ring is already the spread (`PositionFit`).
        // Both are the levels' distances less the point's, each sentinel's place accuracy to spare.
        let beyondLevels = observations.map { $0.distance - point.distance(to: $0.position) }
        let miss = zip(observations, beyondLevels).map { observation, beyond in max(0, -beyond - observation.positionAccuracy) }.max() ?? 0
        let short = fit.span == .point ? 0 : max(0, zip(observations, beyondLevels).map { observation, beyond in beyond - observation.positionAccuracy }.min() ?? 0)
        let lag = moving?.lag ?? 0
        let spread = (fit.spread * fit.spread + miss * miss + short * short + lag * lag).squareRoot()
        let scale = configuration.radiusScale(for: fit, receivers: observations.count)
        return FusedEstimate(latitude: place.latitude, longitude: place.longitude,
                             radius50: scale.radius50 * spread, radius90: scale.radius90 * spread,
                             sources: Array(Set(placed.map(\.sentinel))).sorted(), unplaced: unplaced.subtracting(placed.map(\.sentinel)).sorted(),
                             othersHome: placed.contains(where: \.othersHome), speed: moving?.speed)
    }

    /// A placed sighting in the local plane, with how far its level says the bike was.
    struct Heard {
        var sighting: FusionSighting
        var point: PlanePoint
        /// The model's distance for the level, metres.
        var distance: Double
        /// The farthest the bike can have been: the level's distance with twice the shadowing to
        /// spare, plus the place's accuracy.
        var reach: Double

        init?(_ sighting: FusionSighting, frame: LocalFrame, configuration: LocatorConfiguration) {
            guard let place = sighting.place else { return nil }
            let model = configuration.model(for: sighting.calibration)
            let modelled = PathLossModel(measuredPower: model.rssiAt1m, exponent: model.exponent, nearFieldExponent: model.exponent)
            self.sighting = sighting
            point = frame.point(latitude: place.latitude, longitude: place.longitude)
            distance = modelled.distance(rssi: sighting.rssi)
            reach = modelled.distance(rssi: sighting.rssi - 2 * model.shadowing) + (sighting.accuracy ?? 0)
        }
    }

    /// The sightings from after the bike last moved. A sighting whose sentinel is too far from the
    /// newest one's for both to hear the bike from one spot (each within its reach) shows the bike
    /// has moved since, if it could have moved that far in the time between (`fastestMove`); it and
    /// every earlier one are left out. Sightings from one moment that disagree so stay: a contradiction.
    static func sinceLastMove(_ heard: [Heard], newest: Heard) -> [Heard] {
        let moved = heard.filter { one in
            let gap = one.point.distance(to: newest.point) - one.reach - newest.reach
            return gap > 0 && gap <= fastestMove * (newest.sighting.serverTime - one.sighting.serverTime)
        }.map(\.sighting.serverTime).max()
        guard let moved else { return heard }
        return heard.filter { $0.sighting.serverTime > moved }
    }

    /// A bike on the move is near where it was heard last. It is on the move when the slope of its
    /// fixed sentinels' places against time over the window (a roaming one's places drift with the
    /// bus, not the bike) is larger than their scatter would make for a parked bike but one time in
    /// a hundred (`movingFalseAlarm`). A run of sightings by one sentinel, with no other between,
    /// counts once, at its mean time: its sightings share one place, so they are one piece of
    /// evidence, not many, and counted singly they would make a parked bike's step from a sentinel
    /// that fell silent to its neighbour look like a ride. So it takes three runs: two make a step,
    /// not a line (a move far beyond both sentinels' reach is still seen, by `sinceLastMove`). Kept:
    /// the sightings of the time it took, at the line's speed, to cover the newest one's distance;
    /// the lag, metres, is how far it has gone since them on average, and widens the radius. Nil
    /// when it is not on the move.
    static func onTheMove(_ heard: [Heard], newest: Heard, now: Double) -> (heard: [Heard], lag: Double, speed: Double)? {
        var runs: [(time: Double, point: PlanePoint, count: Double)] = []
        for one in heard.filter({ $0.sighting.accuracy == nil }).sorted(by: { $0.sighting.serverTime < $1.sighting.serverTime }) {
            if let last = runs.last, last.point == one.point {
                runs[runs.count - 1].count += 1
                runs[runs.count - 1].time += (one.sighting.serverTime - last.time) / runs[runs.count - 1].count
            } else {
                runs.append((one.sighting.serverTime, one.point, 1))
            }
        }
        guard let motion = Motion(runs.map { ($0.time, $0.point) }), motion.leastSpeed(falseAlarm: movingFalseAlarm) > 0 else { return nil }
        let speed = motion.speed
        let since = newest.sighting.serverTime - newest.distance / speed
        let kept = heard.filter { $0.sighting.serverTime >= since }
        let age = kept.map { now - $0.sighting.serverTime }.reduce(0, +) / Double(max(1, kept.count))
        return (kept, speed * age, motion.speed)
    }

    /// Whether `point` lies within the box `places` span, east–west and north–south.
    static func among(_ point: PlanePoint, _ places: [PlanePoint]) -> Bool {
        guard let first = places.first else { return false }
        var (low, high) = (first, first)
        for place in places.dropFirst() {
            (low.x, low.y) = (min(low.x, place.x), min(low.y, place.y))
            (high.x, high.y) = (max(high.x, place.x), max(high.y, place.y))
        }
        return point.x >= low.x && point.x <= high.x && point.y >= low.y && point.y <= high.y
    }

    /// What counts once: a fixed sentinel at one place, or each of a roaming sentinel's fixes.
    private enum GroupKey: Hashable {
        case fixed(String, Double, Double)
        case roaming(Int)
    }
}
