import Beacon
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The state the reader and the timer share. Time is the wall clock when live; in a replay it
/// is the capture's time, advanced `speed` times faster than real time from the first record.
public actor RangeState {
    private var feed: RangeFeed
    private let speed: Double?
    private var replay: ReplayClock?
    /// In a replay, the time of the record the reader holds until it is due; nil while it reads the next.
    private var pending: Double?
    private var replayFinished = false
    private let started = ContinuousClock.now

    public init(feed: RangeFeed, speed: Double?) {
        self.feed = feed
        self.speed = speed
    }

    private var elapsed: Double {
        let duration = ContinuousClock.now - started
        return Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }

    /// The instant the view shows.
    public var now: Double {
        replay?.captureTime(elapsed: elapsed) ?? Date().timeIntervalSince1970
    }

    /// In a replay, real seconds until a record stamped `time` is due; nil when live.
    public func secondsUntilDue(_ time: Double) -> Double? {
        guard let speed else { return nil }
        guard let replay else {
            self.replay = ReplayClock(origin: time - elapsed * speed, speed: speed)
            return 0
        }
        pending = time
        return replay.elapsed(until: time) - elapsed
    }

    public func receive(_ advertisement: Advertisement) -> [RangeReport] {
        pending = nil
        return feed.receive(advertisement)
    }

    public func finishReplay() {
        replayFinished = true
    }

    /// Reports the bike out of range once it has gone stale. In a replay the capture, not the clock,
    /// says what was heard: a reader slowed down by a busy machine must not make a bike that was
    /// heard look lost, so staleness is judged only up to the record the reader holds. Once the
    /// replay has finished, the clock runs on past its end only with `pastTheEnd` (the screen): JSON
    /// lines stop where the capture does, so two runs of one capture print the same lines however
    /// late the timer fires.
    public func lapse(pastTheEnd: Bool = true) -> [RangeReport] {
        guard speed != nil else { return feed.lapse(until: now) }
        if replayFinished { return pastTheEnd ? feed.lapse(until: now) : [] }
        guard let pending else { return [] }
        return feed.lapse(until: min(now, pending))
    }

    public func view(notice: String?) -> RangeView {
        feed.view(at: now, notice: notice)
    }
}
