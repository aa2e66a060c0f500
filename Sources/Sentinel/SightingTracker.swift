#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Beacon
import BikebeaconAPI
import Proximity
import Regions

/// Turns readings and region events of missing bikes into sightings: `arrived` on entry,
/// `present` at most every `presentInterval` while inside, `departed` on exit.
///
/// Pure value: times are inputs, and so are the sighting ids (`makeID`), and whether the bike
/// is still missing (`isMissing`): a bike taken off the list (recovered) gets no more reports,
/// not even a `departed`.
public struct SightingTracker: Sendable {
    public struct Configuration: Equatable, Sendable {
        /// Shortest time between two reports of one visit, seconds (default 5 minutes).
        public var presentInterval: Double
        /// Readings of a beacon that has not entered are forgotten after this long, seconds.
        public var forgetAfter: Double

        public init(presentInterval: Double = 300, forgetAfter: Double = 300) {
            self.presentInterval = presentInterval
            self.forgetAfter = forgetAfter
        }
    }

    /// One reading of a beacon: what a report carries.
    public struct Reading: Equatable, Sendable {
        public var time: Double
        public var rssi: Int
        public var distance: Double?
        public var zone: Zone

        public init(time: Double, rssi: Int, distance: Double?, zone: Zone) {
            self.time = time
            self.rssi = rssi
            self.distance = distance
            self.zone = zone
        }
    }

    /// The strongest signal and nearest zone over a stretch of readings.
    struct Best: Codable, Equatable, Sendable {
        var rssi: Int
        var zone: Zone
        var distance: Double?

        init(_ reading: Reading) {
            rssi = reading.rssi
            zone = reading.zone
            distance = reading.distance
        }

        mutating func add(_ reading: Reading) {
            rssi = max(rssi, reading.rssi)
            if reading.zone < zone || (reading.zone == zone && (reading.distance ?? .infinity) < (distance ?? .infinity)) {
                zone = reading.zone
                distance = reading.distance
            }
        }
    }

    /// Readings of one beacon in one stretch: before entry, or since the last report.
    struct Stretch: Equatable, Sendable {
        var firstSeen: Double
        var lastSeen: Double
        var best: Best?

        init(_ reading: Reading) {
            firstSeen = reading.time
            lastSeen = reading.time
            best = Best(reading)
        }

        mutating func add(_ reading: Reading) {
            lastSeen = max(lastSeen, reading.time)
            if best == nil { best = Best(reading) } else { best?.add(reading) }
        }
    }

    struct Visit: Equatable, Sendable {
        var firstSeen: Double
        var lastSeen: Double
        var lastReport: Double
        /// Best since the last report; nil when nothing was heard since.
        var sinceReport: Best?
        /// Best of the previous stretch, reported again if nothing new was heard.
        var previous: Best
        /// A visit restored after a restart whose bike has not entered again: it ends (`departed`)
        /// at this time, moved on by every reading, unless the bike enters again before, which
        /// continues it without a second `arrived`.
        var unconfirmedUntil: Double?

        /// The best since the last report; its zone falls back to the last known one when no
        /// estimate came since (raw readings carry no zone).
        var bestForReport: Best {
            guard var best = sinceReport else { return previous }
            if best.zone == .unknown {
                best.zone = previous.zone
                best.distance = previous.distance
            }
            return best
        }
    }

    public let configuration: Configuration
    /// How long a restored visit waits for its bike after the restart and after each reading.
    private var restoreGrace = 0.0
    private var pending: [BeaconID: Stretch] = [:]
    private var visits: [BeaconID: Visit] = [:]

    public init(configuration: Configuration = .init()) {
        self.configuration = configuration
    }

    /// Beacons with an open visit.
    public var visiting: Set<BeaconID> { Set(visits.keys) }

    /// An open visit as the sentinel saves it across a restart: enough to go on reporting it
    /// (`present` on time, `departed` at the end) without a second `arrived`.
    public struct OpenVisit: Codable, Equatable, Sendable {
        public var beacon: BeaconID
        public var firstSeen: Double
        public var lastSeen: Double
        public var lastReport: Double
        var previous: Best
    }

    /// The open visits, in beacon order; times shifted by `shift`.
    public func openVisits(shiftedBy shift: Double = 0) -> [OpenVisit] {
        visits.sorted { $0.key.description < $1.key.description }.map { beacon, visit in
            OpenVisit(beacon: beacon, firstSeen: visit.firstSeen + shift, lastSeen: visit.lastSeen + shift,
                      lastReport: visit.lastReport + shift, previous: visit.bestForReport)
        }
    }

    /// Takes visits saved before a restart at `now`; each waits `grace` seconds from then, and
    /// from each reading of its bike, for the bike to enter again.
    public mutating func restore(_ saved: [OpenVisit], now: Double, grace: Double) {
        restoreGrace = grace
        for visit in saved where visits[visit.beacon] == nil {
            visits[visit.beacon] = Visit(firstSeen: visit.firstSeen, lastSeen: visit.lastSeen, lastReport: visit.lastReport,
                                         sinceReport: nil, previous: visit.previous, unconfirmedUntil: now + grace)
        }
    }

    /// Restored visits not heard again by `now` end: the bike left while the sentinel was down.
    public mutating func expireUnconfirmed(at now: Double, makeID: () -> UUID) -> [Sighting] {
        var departed: [Sighting] = []
        for (beacon, visit) in visits.sorted(by: { $0.key.description < $1.key.description }) {
            guard let until = visit.unconfirmedUntil, now >= until else { continue }
            visits[beacon] = nil
            departed.append(sighting(makeID(), beacon, .departed, time: now, firstSeen: visit.firstSeen, lastSeen: visit.lastSeen, visit.previous))
        }
        return departed
    }

    /// Takes one reading of a missing bike's beacon (before its region events for that time).
    public mutating func observe(_ beacon: BeaconID, _ reading: Reading) {
        if var visit = visits[beacon] {
            visit.lastSeen = max(visit.lastSeen, reading.time)
            if let until = visit.unconfirmedUntil { visit.unconfirmedUntil = max(until, reading.time + restoreGrace) }
            if visit.sinceReport == nil { visit.sinceReport = Best(reading) } else { visit.sinceReport?.add(reading) }
            visits[beacon] = visit
        } else if var stretch = pending[beacon], reading.time - stretch.lastSeen <= configuration.forgetAfter {
            stretch.add(reading)
            pending[beacon] = stretch
        } else {
            pending[beacon] = Stretch(reading)
        }
    }

    /// The sighting this event calls for, if any.
    public mutating func handle(_ event: RegionEvent, isMissing: Bool, makeID: () -> UUID) -> Sighting? {
        let beacon = event.beacon
        guard isMissing else {
            visits[beacon] = nil
            pending[beacon] = nil
            return nil
        }
        switch event {
        case let .entered(_, _, time):
            if var restored = visits[beacon], restored.unconfirmedUntil != nil {
                // Heard again after a restart: the visit goes on, the owner already knows it arrived.
                restored.unconfirmedUntil = nil
                if let stretch = pending.removeValue(forKey: beacon) {
                    restored.lastSeen = max(restored.lastSeen, stretch.lastSeen)
                    restored.sinceReport = stretch.best
                }
                visits[beacon] = restored
                return nil
            }
            guard visits[beacon] == nil, let stretch = pending.removeValue(forKey: beacon), let best = stretch.best else { return nil }
            visits[beacon] = Visit(firstSeen: stretch.firstSeen, lastSeen: stretch.lastSeen, lastReport: time, sinceReport: nil, previous: best,
                                   unconfirmedUntil: nil)
            return sighting(makeID(), beacon, .arrived, time: time, firstSeen: stretch.firstSeen, lastSeen: stretch.lastSeen, best)

        case let .stillInside(_, _, time, lastSeen):
            guard var visit = visits[beacon] else { return nil }
            visit.lastSeen = max(visit.lastSeen, lastSeen)
            guard time - visit.lastReport >= configuration.presentInterval else {
                visits[beacon] = visit
                return nil
            }
            let best = visit.bestForReport
            visit.lastReport = time
            visit.previous = best
            visit.sinceReport = nil
            visits[beacon] = visit
            return sighting(makeID(), beacon, .present, time: time, firstSeen: visit.firstSeen, lastSeen: visit.lastSeen, best)

        case let .exited(_, _, time, lastSeen):
            guard let visit = visits.removeValue(forKey: beacon) else { return nil }
            let best = visit.bestForReport
            let left = max(visit.firstSeen, lastSeen)
            return sighting(makeID(), beacon, .departed, time: time, firstSeen: visit.firstSeen, lastSeen: left, best)
        }
    }

    /// Ends visits and drops readings of bikes no longer missing; forgets readings of beacons
    /// that never entered and were not heard for `forgetAfter`. Keeps memory bounded.
    public mutating func prune(now: Double, isMissing: (BeaconID) -> Bool) {
        visits = visits.filter { isMissing($0.key) }
        pending = pending.filter { isMissing($0.key) && now - $0.value.lastSeen <= configuration.forgetAfter }
    }

    private func sighting(_ id: UUID, _ beacon: BeaconID, _ event: SightingEvent, time: Double, firstSeen: Double, lastSeen: Double,
                          _ best: Best) -> Sighting {
        // The API takes `Advertisement.rssiRange`; HCI can report -128 ("not available") and stray positives.
        Sighting(id: id, beacon: beacon, event: event, time: time, firstSeen: firstSeen, lastSeen: lastSeen,
                 rssi: min(Advertisement.rssiRange.upperBound, max(Advertisement.rssiRange.lowerBound, best.rssi)), distance: best.distance, zone: best.zone)
    }
}
