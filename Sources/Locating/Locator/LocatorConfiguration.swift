/// The locator's constants. The defaults were chosen on the philotuxo tracks (`bikebeacon-bench
/// locate` chooses them again with each track held out, and prints what each fold chose).
public struct LocatorConfiguration: Sendable, Equatable {
    /// A receiver's level at a fix is the median of its readings of the last this many seconds.
    public var window: Double
    /// A receiver with no reading in the window gives its newest while that is younger than
    /// this many seconds: on philotuxo's readings kept 1 in 10, the median error fell from 3.7 to 2.9 m.
    public var longestWindow: Double
    /// How fast the tag may move, m/s (a walking pace): a level older than the window is about
    /// where the tag was, so it counts as if the receiver's place were off by this times its age.
    public var tagSpeed: Double
    /// The tag's speed is the slope of a line through its fixes of the last this many seconds, so
    /// one fix's jitter does not pass for motion; at speed v a fix lags by v × window/2 (a level is
    /// its window's median) and the radius grows by that. Until three fits make a line (a tag just
    /// arrived, or heard seldom), its speed is unknown and taken to be `tagSpeed`: at 10 times
    /// philotuxo's pace radius90 then held 84 % instead of 82 %. 0: the tag is taken to stand still.
    public var speedSpan: Double
    /// A fix is made at the first reading at least this many seconds after the previous fix.
    public var interval: Double
    /// Spread of a level about the path-loss model (log-normal shadowing), dB, by calibration kind:
    /// a model measured on site misses by less than the default one.
    public var shadowingTwoPoint: Double
    public var shadowingOnePoint: Double
    public var shadowingUncalibrated: Double
    /// RSSI at 1 m and path-loss exponent for a receiver without its own (iBeacon's usual −59 dBm,
    /// and the proximity estimator's 1.5).
    public var defaultRSSIAt1m: Double
    public var defaultExponent: Double
    /// Residuals weigh 1/(1 + (r/c)²), r in standard deviations, c this (Cauchy): a reflection or
    /// a wall several deviations off weighs next to nothing, and the point does not follow it.
    public var outlierScale: Double
    /// Standard deviation of the prior toward the RSSI-weighted centroid, as a fraction of the
    /// fix's median modelled distance: where the receivers' distances say little, the point stays
    /// between the receivers. A fraction, not metres, so the same holds in a shed, a hall and a
    /// street of sentinels (on philotuxo scaled 0.5 to 3 times, radii held alike).
    public var priorScale: Double
    /// Each new point moves this fraction of the way from the previous one (1: no smoothing).
    public var smoothing: Double
    /// Least horizontal distance the model uses, metres: a tag is rarely at a receiver's antenna,
    /// and log-distance has no value at 0.
    public var nearestRange: Double
    /// radius50 and radius90 as multiples of the fit's spread (see `PositionFit.spread`), by how
    /// many receivers contributed: entry i for i + 1 receivers, the last for that many and more.
    /// Fewer receivers leave the fit less to check itself against (three fit the point and the
    /// common shift exactly), so the same spread misses by more; one scale for all would hold
    /// where it was chosen and fail on a site with fewer receivers.
    public var radiusScales: [RadiusScale]
    /// Prior standard deviation, dB, of a shift common to every level (the tag's power, the site):
    /// small when every receiver was calibrated on site at two distances, wide otherwise.
    public var offsetSpreadCalibrated: Double
    public var offsetSpreadUncalibrated: Double
    /// What the learnt shift may still be off by after many fixes, dB.
    public var offsetFloor: Double
    /// The learnt shift averages about this many fixes, so it follows a tag's slow changes.
    public var offsetMemory: Int
    /// The assumed shadowing weighs as much as this many fixes' worth of measured misses.
    public var noisePrior: Double
    /// A receiver's own learnt shift (see `ReceiverShifts`) is applied as n / (n + this) of its mean
    /// miss over n fixes, by calibration kind; a two-point calibration is not second-guessed. From
    /// the shadowing constants: a kind's shadowing is the scatter about a model measured on site (6 dB,
    /// `shadowingTwoPoint`) and that model's own error together, so the error is √(9² − 6²) = 6.7 dB
    /// uncalibrated and √(7² − 6²) = 3.6 dB one-point, and the calibration weighs as much as (6/6.7)² =
    /// 0.8 and (6/3.6)² = 2.8 independent misses; times 12, as consecutive fixes share most of their
    /// window and their place. Uncalibrated, philotuxo's median error fell from 2.11 to 1.81 m (10
    /// or 30 here moved it by 0.1 m).
    public var shiftFixesOnePoint: Double
    public var shiftFixesUncalibrated: Double
    /// The default exponent weighs as much as this many fixes against the site's own, learnt for
    /// every receiver not calibrated two-point (`SiteExponent`), as a receiver's own shift is; ∞: not learnt.
    public var exponentFixes: Double
    /// The path-loss model misses by about this fraction of the tag's distance however many receivers agree: a
    /// site's levels are flat or climb again over stretches (a wall, a shelf, a body), where a level says little of
    /// how far. Added to the spread in quadrature, times the fix's median distance as the levels less the learnt
    /// shift give it at no exponent steeper than `spreadExponentCap`. Tried leave one dataset out over philotuxo and
    /// the four borrowed sites (`bikebeacon-bench locate`; docs/benchmarks.md): 0.15 with the cap at 2 brought every
    /// set's radii nearer their 50 and 90 %, and larger fractions cost pcng's.
    public var modelError: Double
    /// The spread takes no path loss steeper than this (free space's 2): a steep exponent, learnt or
    /// calibrated, says a level moves a lot per metre, and so that the point is sure, where the level may
    /// as well be flat for a few metres. The fit itself uses the exponent as it is.
    public var spreadExponentCap: Double

    public init(
        window: Double = 3,
        longestWindow: Double = 10,
        tagSpeed: Double = 1,
        speedSpan: Double = 5,
        interval: Double = 1,
        shadowingTwoPoint: Double = 6,
        shadowingOnePoint: Double = 7,
        shadowingUncalibrated: Double = 9,
        defaultRSSIAt1m: Double = -59,
        defaultExponent: Double = 1.5,
        outlierScale: Double = 1,
        priorScale: Double = 0.6,
        smoothing: Double = 1,
        nearestRange: Double = 0.5,
        radiusScales: [RadiusScale] = Self.philotuxoRadiusScales,
        offsetSpreadCalibrated: Double = 2,
        offsetSpreadUncalibrated: Double = 10,
        offsetFloor: Double = 1.5,
        offsetMemory: Int = 30,
        noisePrior: Double = 10,
        shiftFixesOnePoint: Double = 30,
        shiftFixesUncalibrated: Double = 10,
        exponentFixes: Double = 10,
        modelError: Double = 0.15,
        spreadExponentCap: Double = 2
    ) {
        self.window = window
        self.longestWindow = longestWindow
        self.tagSpeed = tagSpeed
        self.speedSpan = speedSpan
        self.interval = interval
        self.shadowingTwoPoint = shadowingTwoPoint
        self.shadowingOnePoint = shadowingOnePoint
        self.shadowingUncalibrated = shadowingUncalibrated
        self.defaultRSSIAt1m = defaultRSSIAt1m
        self.defaultExponent = defaultExponent
        self.outlierScale = outlierScale
        self.priorScale = priorScale
        self.smoothing = smoothing
        self.nearestRange = nearestRange
        self.radiusScales = radiusScales
        self.offsetSpreadCalibrated = offsetSpreadCalibrated
        self.offsetSpreadUncalibrated = offsetSpreadUncalibrated
        self.offsetFloor = offsetFloor
        self.offsetMemory = max(1, offsetMemory)
        self.noisePrior = noisePrior
        self.shiftFixesOnePoint = shiftFixesOnePoint
        self.shiftFixesUncalibrated = shiftFixesUncalibrated
        self.exponentFixes = exponentFixes
        self.modelError = modelError
        self.spreadExponentCap = spreadExponentCap
    }

    /// How many fixes' misses weigh as much as a receiver's calibration; nil: not learnt.
    public func shiftFixes(for calibration: ReceiverCalibration) -> Double? {
        switch calibration {
        case .none: shiftFixesUncalibrated
        case .onePoint: shiftFixesOnePoint
        case .twoPoint: nil
        }
    }

    /// How far the common shift of every level may be from 0 before anything is learnt, dB: a line through two
    /// distances pins it. A receiver never calibrated leaves it wide, and so does a one-point calibration: one
    /// median at 1 m, fade and all, carried to every distance by the default exponent, says little of the shift
    /// (held as loosely as none, the borrowed sites' one-point rows came 0.995 → 0.960 of the best anchor's error).
    public func initialOffsetSpread(_ calibrations: some Sequence<ReceiverCalibration>) -> Double {
        calibrations.allSatisfy { $0.measuredExponent != nil } ? offsetSpreadCalibrated : offsetSpreadUncalibrated
    }

    /// The multiples of the spread for a fix from `receivers` receivers.
    public func radiusScale(receivers: Int) -> RadiusScale {
        let scales = radiusScales.isEmpty ? Self.philotuxoRadiusScales : radiusScales
        return scales[min(max(receivers, 1), scales.count) - 1]
    }

    /// The multiples for `fit`, drawn on `receivers` receivers: at one place, one receiver's, however many are there.
    public func radiusScale(for fit: PositionFit, receivers: Int) -> RadiusScale {
        radiusScale(receivers: fit.span == .point ? 1 : receivers)
    }

    /// The 50 % and 93 % quantiles of error ÷ spread for 1 to 12 receivers on the philotuxo tracks,
    /// each also run with sets of fewer of its receivers laid out as a site's are, around where its
    /// tags go (`bikebeacon-bench locate` prints them). radius90 is drawn at 93 %, not 90 %, for sites
    /// none of the constants saw, where it ran short (`LocateBench.radius90Quantile`). Sets drawn at
    /// random, with the tag mostly outside them, gave multiples up to 1.6 times as large: radius90 then held 97–100 % on a site
    /// whose receivers surround its tags (`BorrowedSite`) and 99–100 % in the city's fusion. One place (the first
    /// entry) keeps 1.30/8.90: the bench measures no more than the floor of larger counts there (0.72/1.63), but
    /// philotuxo's lone receivers are all in one 10 × 8 m room, where no level is far from the default model's, and a
    /// sentinel alone in a street may hear a bike 5 m away through a wall or 60 m away in the open.
    public static let philotuxoRadiusScales: [RadiusScale] = [
        RadiusScale(radius50: 1.30, radius90: 8.90), RadiusScale(radius50: 0.72, radius90: 1.56), RadiusScale(radius50: 0.72, radius90: 1.56),
        RadiusScale(radius50: 0.72, radius90: 1.54), RadiusScale(radius50: 0.72, radius90: 1.54), RadiusScale(radius50: 0.72, radius90: 1.54),
        RadiusScale(radius50: 0.72, radius90: 1.54), RadiusScale(radius50: 0.70, radius90: 1.54), RadiusScale(radius50: 0.70, radius90: 1.54),
        RadiusScale(radius50: 0.64, radius90: 1.41), RadiusScale(radius50: 0.63, radius90: 1.41), RadiusScale(radius50: 0.56, radius90: 1.27),
    ]

    /// The path-loss model and shadowing for a receiver calibrated as `calibration`.
    public func model(for calibration: ReceiverCalibration) -> (rssiAt1m: Double, exponent: Double, shadowing: Double) {
        switch calibration {
        case .none: (defaultRSSIAt1m, defaultExponent, shadowingUncalibrated)
        case .onePoint(let power): (power, defaultExponent, shadowingOnePoint)
        case let .twoPoint(power, exponent): (power, exponent, shadowingTwoPoint)
        }
    }
}
