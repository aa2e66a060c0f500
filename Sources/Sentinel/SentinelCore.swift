import Beacon
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Proximity
import Regions
import Registry
import Tracking

/// The sentinel's pure core: advertisements and clock ticks in, sightings of missing bikes and
/// own-bike alarms out. Time and sighting ids are inputs; no I/O.
public struct SentinelCore: Sendable {
    public struct Output: Equatable, Sendable {
        public var sightings: [Sighting] = []
        public var alarms: [OwnBikeAlarm] = []
        /// Own bikes (by name) that came into their place: the other half of the alarm's story.
        public var arrivals: [String] = []
    }

    private var tracker: BeaconTracker
    private var sightings: SightingTracker
    private let ownBikes: [String: OwnBike]
    private var replayTick = -Double.infinity
    private var replayEnd = -Double.infinity
    /// Added to core times to stamp what leaves the core (sightings, alarms). Live, core time is
    /// monotonic (`LiveClock`) and this is how far the wall clock has moved from it; a capture's
    /// times are its stamps (0).
    public var stampShift = 0.0

    public init(ownBikes: [OwnBike] = [], registry: MissingRegistry = MissingRegistry(),
                tracking: TrackerConfiguration = .init(), sighting: SightingTracker.Configuration = .init()) {
        tracker = BeaconTracker(ownRegions: ownBikes.map(\.region), registry: registry, configuration: tracking)
        sightings = SightingTracker(configuration: sighting)
        self.ownBikes = Dictionary(ownBikes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    public var registry: MissingRegistry { tracker.registry }
    /// Beacons with per-beacon state now (for the flat-memory check and metrics).
    public var trackedBeaconCount: Int { tracker.trackedBeaconCount }

    /// The tracker's latest estimate of a missing or own bike's beacon at `time`.
    public func estimate(of beacon: BeaconID, at time: Double) -> ProximityEstimate? { tracker.estimate(of: beacon, at: time) }

    /// How far past the last reading a final tick must go for every beacon to have left.
    public var flushHorizon: Double {
        tracker.configuration.regions.maximumAbsenceTimeout + tracker.configuration.regions.reportPeriod + 1
    }

    /// Open visits of missing bikes, for saving across a restart: stamped like sightings, or in core time.
    public func openVisits(stamped: Bool = true) -> [SightingTracker.OpenVisit] {
        sightings.openVisits(shiftedBy: stamped ? stampShift : 0)
    }

    /// Takes the visits saved before a restart, at core time `now`: a bike still missing and heard
    /// within the longest absence timeout keeps its visit (no second `arrived`) until it has not
    /// been heard for that long again, then it is reported `departed`; older visits, and those of
    /// bikes no longer missing, are dropped.
    public mutating func restore(_ saved: [SightingTracker.OpenVisit], now: Double) -> (restored: Int, dropped: Int) {
        let timeout = tracker.configuration.regions.maximumAbsenceTimeout
        let visits = saved.filter { tracker.registry.contains($0.beacon) }.map { visit in
            var moved = visit
            moved.firstSeen -= stampShift
            moved.lastSeen -= stampShift
            moved.lastReport -= stampShift
            // Nothing was heard in the future: a visit saved on the server's clock (`stampShift`) and restored before
            // that clock is known again (a Pi without a real-time clock, hours behind after a power cut) is moved back
            // to end now, keeping its length, or its next "present" would wait those hours.
            let ahead = max(moved.lastSeen, moved.lastReport) - now
            if ahead > 0 {
                moved.firstSeen -= ahead
                moved.lastSeen -= ahead
                moved.lastReport -= ahead
            }
            return moved
        }
        let fresh = visits.filter { now - $0.lastSeen <= timeout }
        sightings.restore(fresh, now: now, grace: timeout)
        return (fresh.count, saved.count - fresh.count)
    }

    /// Takes a new missing list. Bikes taken off it get no more reports from this moment.
    public mutating func updateRegistry(_ registry: MissingRegistry, now: Double) {
        tracker.updateRegistry(registry)
        sightings.prune(now: now, isMissing: registry.contains)
    }

    public mutating func observe(_ advertisement: Advertisement, makeID: () -> UUID) -> Output {
        let beacon = advertisement.beacon
        if tracker.registry.contains(beacon) {
            // The strongest raw RSSI counts; the zone comes from the estimates carried by events.
            sightings.observe(beacon, .init(time: advertisement.time, rssi: advertisement.rssi, distance: nil, zone: .unknown))
        }
        return output(tracker.observe(advertisement), makeID: makeID)
    }

    /// Advances time: exits, still-here reports, forgetting. Call about once a second.
    public mutating func tick(at time: Double, makeID: () -> UUID) -> Output {
        sightings.prune(now: time, isMissing: tracker.registry.contains)
        var out = output(tracker.tick(at: time), makeID: makeID)
        out.sightings += sightings.expireUnconfirmed(at: time, makeID: makeID).map { $0.shifted(by: stampShift) }
        return out
    }

    /// For captures, where time is the capture's: observes, then ticks at most once a second of
    /// capture time. The same for the daemon and for anyone predicting what it reports.
    public mutating func replay(_ advertisement: Advertisement, makeID: () -> UUID) -> Output {
        var out = observe(advertisement, makeID: makeID)
        replayEnd = max(replayEnd, advertisement.time)
        if advertisement.time - replayTick >= 1 {
            replayTick = advertisement.time
            let ticked = tick(at: advertisement.time, makeID: makeID)
            out.sightings += ticked.sightings
            out.alarms += ticked.alarms
            out.arrivals += ticked.arrivals
        }
        return out
    }

    /// The capture is over: every bike still inside has left by now.
    public mutating func finishReplay(makeID: () -> UUID) -> Output {
        guard replayEnd.isFinite else { return Output() }
        return tick(at: replayEnd + flushHorizon, makeID: makeID)
    }

    private mutating func output(_ events: [TrackerEvent], makeID: () -> UUID) -> Output {
        var out = Output()
        for event in events {
            switch event.subject {
            case .missing:
                // The estimate an event carries gives the zone; stamped with the reading it rests on,
                // not the tick that produced the event, so `lastSeen` stays a time the bike was heard.
                let readingTime: Double? = switch event.region {
                case let .entered(_, _, time): time
                case let .stillInside(_, _, _, lastSeen): lastSeen
                case .exited: nil
                }
                if let readingTime, let estimate = event.estimate, let rssi = estimate.filteredRSSI, estimate.zone != .unknown {
                    sightings.observe(event.region.beacon, .init(time: readingTime, rssi: Int(rssi.rounded()),
                                                                 distance: estimate.distance, zone: estimate.zone))
                }
                if let sighting = sightings.handle(event.region, isMissing: true, makeID: makeID) {
                    out.sightings.append(sighting.shifted(by: stampShift))
                }
            case .own:
                if case let .exited(region, _, time, lastSeen) = event.region, let bike = ownBikes[region.name] {
                    out.alarms.append(OwnBikeAlarm(bike: bike, time: time + stampShift, lastSeen: lastSeen + stampShift))
                }
                if case let .entered(region, _, _) = event.region, ownBikes[region.name] != nil {
                    out.arrivals.append(region.name)
                }
            case .other:
                break
            }
        }
        return out
    }
}
