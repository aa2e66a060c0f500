import Beacon

/// The state behind `bikebeacon range`: the tracker plus what it takes to report each
/// change once. Pure: readings and the clock are inputs, reports come out.
public struct RangeFeed: Sendable {
    public private(set) var tracker: RangeTracker
    public let bike: String?
    public let source: String
    /// Whether the last report said out of range, so going stale is reported once.
    private var reportedOutOfRange = false

    public init(tracker: RangeTracker, bike: String?, source: String) {
        self.tracker = tracker
        self.bike = bike
        self.source = source
    }

    /// The screen's input at `now`.
    public func view(at now: Double, notice: String? = nil) -> RangeView {
        RangeView(bike: bike, beacon: tracker.beacon, estimate: tracker.estimate(at: now), history: tracker.history, now: now, source: source, notice: notice)
    }

    /// Feeds one advertisement; returns the reports it causes: an out-of-range report when the
    /// bike had gone stale before this reading, then the reading. Other beacons cause nothing.
    public mutating func receive(_ advertisement: Advertisement) -> [RangeReport] {
        guard advertisement.beacon == tracker.beacon else { return [] }
        var reports = lapse(until: advertisement.time)
        tracker.record(advertisement)
        reportedOutOfRange = false
        reports.append(RangeReport(view: view(at: advertisement.time), event: .reading))
        return reports
    }

    /// The out-of-range report, once, if the bike went stale by `now`. It is stamped with the
    /// instant the estimate first went unknown after the stale period, or `now` if later.
    public mutating func lapse(until now: Double) -> [RangeReport] {
        guard !reportedOutOfRange, let heard = tracker.history.last?.time else { return [] }
        for instant in [heard + tracker.staleAfter + 0.001, now] where instant <= now {
            if tracker.estimate(at: instant).zone == .unknown {
                reportedOutOfRange = true
                return [RangeReport(view: view(at: instant), event: .outOfRange)]
            }
        }
        return []
    }
}
