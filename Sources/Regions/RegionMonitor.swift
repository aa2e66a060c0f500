import Beacon
import Proximity

/// Turns per-beacon proximity estimates into region enter/exit events, like iOS beacon
/// region monitoring but with an absence timeout that adapts to each beacon's rhythm.
///
/// A region with a required zone or distance limit keeps a Bayes belief per beacon that it is
/// within the limit (`MembershipBelief`), fed by each reading's own distance: it enters when
/// sure it is inside and leaves, while still heard, when as sure it is outside; a clear walk
/// out is seen in seconds instead of after a median window and a timeout. Silence is left to
/// the absence timeout, as for any region.
///
/// Pure value: time is an input. Feed it every reading (`observe`) and call `tick` regularly
/// (about once a second) so exits, still-inside reports and forgetting happen on time even
/// when nothing is heard. Readings older than the beacon's latest, or stamped with a
/// non-finite time, are ignored.
public struct RegionMonitor: Sendable {
    private let rules: MonitorRules
    private var tracks: [BeaconID: Track] = [:]

    public init(regions: [Region], configuration: RegionMonitorConfiguration = .init()) {
        rules = MonitorRules(regions: regions, configuration: configuration.sanitized)
    }

    public var regions: [Region] { rules.regions }
    /// The settings in force (pulled into a consistent range).
    public var configuration: RegionMonitorConfiguration { rules.configuration }

    /// Beacons whose state is held now; flat in a busy street because unheard beacons are
    /// forgotten after `forgetAfter`, and beacons in no region are never held.
    public var trackedBeaconCount: Int { tracks.count }

    /// Whether `beacon` is inside `region` now (as of the last call).
    public func isInside(_ region: Region, beacon: BeaconID) -> Bool {
        guard let index = rules.regions.firstIndex(of: region), let track = tracks[beacon] else { return false }
        return track.memberships.contains { $0.region == index && $0.inside }
    }

    /// The absence timeout currently applied to `beacon`, seconds; nil if it is not tracked.
    public func absenceTimeout(for beacon: BeaconID) -> Double? {
        tracks[beacon].map { rules.absenceTimeout($0) }
    }

    /// Takes one reading of `beacon` (the estimator's output for it, stamped with its time).
    public mutating func observe(_ beacon: BeaconID, _ estimate: ProximityEstimate) -> [RegionEvent] {
        let time = estimate.time
        guard time.isFinite else { return [] }
        let rules = self.rules
        var events: [RegionEvent] = []
        if let index = tracks.index(forKey: beacon) {
            // Mutated in place: a copy out of the table would copy its arrays on every reading.
            guard time >= tracks.values[index].lastHeard else { return [] }
            rules.expire(&tracks.values[index], beacon: beacon, at: time, into: &events)
            rules.learnInterval(&tracks.values[index], at: time)
            rules.apply(estimate, to: &tracks.values[index], beacon: beacon, into: &events)
            rules.report(&tracks.values[index], beacon: beacon, at: time, into: &events)
        } else {
            let matching = rules.regions.indices.filter { rules.regions[$0].contains(beacon) }
            guard !matching.isEmpty else { return [] }
            var track = Track(
                lastHeard: time,
                intervals: AdvertisingIntervals(capacity: rules.configuration.intervalHistory),
                memberships: matching.map { Membership(region: $0, initialBelief: 1 - rules.configuration.membershipProbability) }
            )
            rules.apply(estimate, to: &track, beacon: beacon, into: &events)
            tracks[beacon] = track
        }
        return events
    }

    /// Advances every beacon to `time`: exits on absence, still-inside reports, forgetting.
    public mutating func tick(at time: Double) -> [RegionEvent] {
        let rules = self.rules
        var events: [RegionEvent] = []
        var forgotten: [BeaconID] = []
        // Walk by index and mutate in place: no copy of the table per beacon.
        var index = tracks.startIndex
        while index != tracks.endIndex {
            let beacon = tracks.keys[index]
            rules.expire(&tracks.values[index], beacon: beacon, at: time, into: &events)
            rules.report(&tracks.values[index], beacon: beacon, at: time, into: &events)
            let track = tracks.values[index]
            if time - track.lastHeard > rules.configuration.forgetAfter, !track.memberships.contains(where: \.inside) {
                forgotten.append(beacon)
            }
            tracks.formIndex(after: &index)
        }
        for beacon in forgotten { tracks[beacon] = nil }
        return events
    }
}

/// The monitor's decisions, apart from its state so they can work on a track in place.
private struct MonitorRules: Sendable {
    let regions: [Region]
    let configuration: RegionMonitorConfiguration

    func absenceTimeout(_ track: Track) -> Double {
        guard track.intervals.count >= configuration.intervalsToAdapt else { return configuration.coldStartAbsenceTimeout }
        let learnt = (track.intervals.p95 ?? 0) * configuration.intervalMultiplier
        return min(configuration.maximumAbsenceTimeout, max(configuration.minimumAbsenceTimeout, learnt))
    }

    func enterWindow(_ track: Track) -> Double {
        guard track.intervals.count >= configuration.intervalsToAdapt, let p95 = track.intervals.p95 else {
            return configuration.enterWindow
        }
        return max(configuration.enterWindow, configuration.enterIntervalFactor * p95)
    }

    /// Records the gap since the last reading, unless it is so long it was an absence.
    func learnInterval(_ track: inout Track, at time: Double) {
        let interval = time - track.lastHeard
        if interval > 0, interval * configuration.intervalMultiplier <= configuration.maximumAbsenceTimeout {
            track.intervals.append(interval)
        }
        track.lastHeard = time
    }

    func expire(_ track: inout Track, beacon: BeaconID, at time: Double, into events: inout [RegionEvent]) {
        let timeout = absenceTimeout(track)
        for i in track.memberships.indices where track.memberships[i].inside {
            if time - track.memberships[i].lastSupport > timeout {
                track.memberships[i].leave()
                events.append(.exited(region: regions[track.memberships[i].region], beacon: beacon, time: time, lastSeen: track.memberships[i].lastSeen))
            }
        }
    }

    func apply(_ estimate: ProximityEstimate, to track: inout Track, beacon: BeaconID, into events: inout [RegionEvent]) {
        let time = estimate.time
        let window = enterWindow(track)
        for i in track.memberships.indices {
            let region = regions[track.memberships[i].region]
            if let limit = region.distanceLimit {
                // A reading's own distance is the fresh evidence; the filtered one when no reading came with it.
                guard let distance = estimate.readingDistance ?? estimate.distance else { continue }
                track.memberships[i].belief.update(time: time, readingDistance: distance, limit: limit,
                                                   model: estimate.model ?? MembershipBelief.freeSpace, settings: beliefSettings)
                let inside = track.memberships[i].belief.probability
                if track.memberships[i].inside {
                    // Heard: only the belief can take it out now; the absence timeout is for silence.
                    track.memberships[i].lastSupport = time
                    if inside >= 0.5 { track.memberships[i].lastSeen = time }
                    if inside <= 1 - configuration.membershipProbability {
                        track.memberships[i].leave()
                        events.append(.exited(region: region, beacon: beacon, time: time, lastSeen: track.memberships[i].lastSeen))
                    }
                } else if inside >= configuration.membershipProbability {
                    track.memberships[i].enter(at: time)
                    events.append(.entered(region: region, beacon: beacon, time: time))
                }
            } else if track.memberships[i].inside {
                if region.admits(estimate) {
                    track.memberships[i].lastSupport = time
                    track.memberships[i].lastSeen = time
                }
            } else if region.admits(estimate),
                      track.memberships[i].qualify(at: time, needed: configuration.enterReadings, within: window) {
                events.append(.entered(region: region, beacon: beacon, time: time))
            }
        }
    }

    var beliefSettings: MembershipBelief.Settings {
        MembershipBelief.Settings(
            scatter: configuration.readingScatter,
            switchRate: configuration.membershipSwitchRate,
            evidenceInterval: configuration.evidenceInterval,
            outlierShare: configuration.outlierShare
        )
    }

    func report(_ track: inout Track, beacon: BeaconID, at time: Double, into events: inout [RegionEvent]) {
        for i in track.memberships.indices where track.memberships[i].inside {
            if time - track.memberships[i].lastReport >= configuration.reportPeriod {
                track.memberships[i].lastReport = time
                let m = track.memberships[i]
                events.append(.stillInside(region: regions[m.region], beacon: beacon, time: time, lastSeen: m.lastSeen))
            }
        }
    }
}

/// Everything the monitor remembers about one beacon.
private struct Track: Sendable {
    var lastHeard: Double
    var intervals: AdvertisingIntervals
    var memberships: [Membership]
}

/// One beacon's standing in one region it matches.
private struct Membership: Sendable {
    /// Index into `RegionMonitor.regions`.
    let region: Int
    private(set) var inside = false
    /// P(inside) for a region with a distance limit. It starts as sure of "outside" as an exit
    /// needs: the monitor starts outside, and one reading, however close, does not enter.
    var belief: MembershipBelief
    /// Times of the latest qualifying readings while outside, oldest first.
    private var qualifying: [Double] = []
    /// Last reading that did not count against the beacon being inside: the absence timeout runs from it.
    var lastSupport = 0.0
    /// Last reading that said inside: the best guess of when the beacon left, reported with the exit.
    var lastSeen = 0.0
    /// Last entered or still-inside report.
    var lastReport = 0.0

    init(region: Int, initialBelief: Double) {
        self.region = region
        belief = MembershipBelief(probability: initialBelief)
    }

    /// Records a qualifying reading; returns true (and goes inside) when there are now
    /// `needed` of them within `window` seconds.
    mutating func qualify(at time: Double, needed: Int, within window: Double) -> Bool {
        qualifying.append(time)
        if qualifying.count > needed { qualifying.removeFirst(qualifying.count - needed) }
        guard qualifying.count == needed, let first = qualifying.first, time - first <= window else { return false }
        enter(at: time)
        return true
    }

    mutating func enter(at time: Double) {
        inside = true
        qualifying = []
        lastSupport = time
        lastSeen = time
        lastReport = time
    }

    mutating func leave() {
        inside = false
    }
}
