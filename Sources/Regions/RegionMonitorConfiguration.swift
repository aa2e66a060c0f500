/// How much evidence the region monitor wants before it says a beacon came or went.
///
/// The defaults favour "no false departures" (the top complaint about beacon apps) while
/// keeping a real departure of a normally advertising tag under about 10–15 s.
public struct RegionMonitorConfiguration: Sendable, Equatable {
    /// Readings needed to enter a region without a distance limit. Default 2: one stray reading never enters.
    public var enterReadings: Int
    /// Those readings must fall within this many seconds. Default 5 s.
    ///
    /// For a beacon heard more slowly than that, the window widens to
    /// `enterIntervalFactor` × its 95th-percentile interval once `intervalsToAdapt` intervals
    /// are known, so a steady 0.1 Hz beacon still enters while a lone pair of readings far
    /// apart does not.
    public var enterWindow: Double
    /// See `enterWindow`. Default 1.5.
    public var enterIntervalFactor: Double
    /// Intervals that must be observed before the enter window and the absence timeout adapt. Default 3.
    public var intervalsToAdapt: Int
    /// Floor of the absence timeout, seconds. Default 10 s.
    public var minimumAbsenceTimeout: Double
    /// k in `timeout = max(minimum, k × p95 interval)`. Default 4.
    ///
    /// Why 4: with independent packet loss p, gaps between readings are geometric, the p95
    /// interval is about ln 0.05 / ln p advertising periods, and the chance that a present
    /// beacon stays silent for k × p95 is about 0.05^k per reading, whatever p is. k = 4 gives
    /// ~6·10⁻⁶ per reading (one false exit per ~2 days at 1 Hz even before the 10 s floor);
    /// k = 3 would give one per ~2 hours, k = 5 only buys more exit latency.
    public var intervalMultiplier: Double
    /// Absence timeout while fewer than `intervalsToAdapt` intervals are known, seconds.
    /// Default 30 s (what iOS takes to exit). A beacon just entered has shown no rhythm yet:
    /// a Govee tag enters on two frames 0.1 s apart and then is silent for 24 s (real capture),
    /// which the 10 s floor would call a departure.
    public var coldStartAbsenceTimeout: Double
    /// Ceiling of the absence timeout, seconds. Default 120 s. Gaps longer than
    /// `maximumAbsenceTimeout / intervalMultiplier` are absences, not advertising intervals,
    /// and are not learnt.
    public var maximumAbsenceTimeout: Double
    /// Advertising intervals kept per beacon for the 95th percentile. Default 32.
    public var intervalHistory: Int
    /// For regions with a required zone or distance limit, membership is a Bayes filter over
    /// inside/outside fed by each reading's own distance (see `MembershipBelief`): the one-sigma
    /// scatter of the reading about the level at the true distance, dB, so it holds whatever the
    /// path-loss exponent. Default 8 dB, what single BLE readings show indoors (philotuxo).
    public var readingScatter: Double
    /// Expected membership changes per second of such a region. Default 1/60: people walk in
    /// and out about once a minute at most; it bounds how sure the filter gets, so clear evidence
    /// moves it in seconds while a parked bike's noise never does.
    public var membershipSwitchRate: Double
    /// Probability of being inside needed to enter; leaving needs the same probability of being
    /// outside. Default 0.9.
    public var membershipProbability: Double
    /// Readings closer together than this share their evidence, seconds. Default 1.
    public var evidenceInterval: Double
    /// Share of readings taken as meaningless whatever they say. Default 0.1.
    public var outlierShare: Double
    /// Period of the still-inside report, seconds. Default 60 s.
    public var reportPeriod: Double
    /// State of a beacon unheard this long is dropped, seconds. Default 300 s; never less
    /// than `maximumAbsenceTimeout`, so a beacon always exits before it is forgotten.
    public var forgetAfter: Double

    public init(
        enterReadings: Int = 2,
        enterWindow: Double = 5,
        enterIntervalFactor: Double = 1.5,
        intervalsToAdapt: Int = 3,
        minimumAbsenceTimeout: Double = 10,
        intervalMultiplier: Double = 4,
        coldStartAbsenceTimeout: Double = 30,
        maximumAbsenceTimeout: Double = 120,
        intervalHistory: Int = 32,
        readingScatter: Double = 8,
        membershipSwitchRate: Double = 1.0 / 60,
        membershipProbability: Double = 0.9,
        evidenceInterval: Double = 1,
        outlierShare: Double = 0.1,
        reportPeriod: Double = 60,
        forgetAfter: Double = 300
    ) {
        self.enterReadings = enterReadings
        self.enterWindow = enterWindow
        self.enterIntervalFactor = enterIntervalFactor
        self.intervalsToAdapt = intervalsToAdapt
        self.minimumAbsenceTimeout = minimumAbsenceTimeout
        self.intervalMultiplier = intervalMultiplier
        self.coldStartAbsenceTimeout = coldStartAbsenceTimeout
        self.maximumAbsenceTimeout = maximumAbsenceTimeout
        self.intervalHistory = intervalHistory
        self.readingScatter = readingScatter
        self.membershipSwitchRate = membershipSwitchRate
        self.membershipProbability = membershipProbability
        self.evidenceInterval = evidenceInterval
        self.outlierShare = outlierShare
        self.reportPeriod = reportPeriod
        self.forgetAfter = forgetAfter
    }

    /// The same settings pulled into a consistent range, so no combination can trap or
    /// forget a beacon that is still inside.
    var sanitized: RegionMonitorConfiguration {
        var c = self
        c.enterReadings = max(1, c.enterReadings)
        c.enterWindow = max(0, c.enterWindow)
        c.enterIntervalFactor = max(0, c.enterIntervalFactor)
        c.intervalsToAdapt = max(1, c.intervalsToAdapt)
        c.minimumAbsenceTimeout = max(0, c.minimumAbsenceTimeout)
        c.intervalMultiplier = max(0, c.intervalMultiplier)
        c.maximumAbsenceTimeout = max(c.minimumAbsenceTimeout, c.maximumAbsenceTimeout)
        c.coldStartAbsenceTimeout = min(c.maximumAbsenceTimeout, max(c.minimumAbsenceTimeout, c.coldStartAbsenceTimeout))
        c.intervalHistory = max(1, c.intervalHistory)
        c.readingScatter = c.readingScatter > 0 ? c.readingScatter : 8
        c.membershipSwitchRate = max(0, c.membershipSwitchRate)
        c.membershipProbability = min(0.999, max(0.5, c.membershipProbability))
        c.evidenceInterval = c.evidenceInterval > 0 ? c.evidenceInterval : 1
        c.outlierShare = min(1, max(0, c.outlierShare))
        c.reportPeriod = c.reportPeriod > 0 ? c.reportPeriod : .infinity
        c.forgetAfter = max(c.maximumAbsenceTimeout, c.forgetAfter)
        return c
    }
}
