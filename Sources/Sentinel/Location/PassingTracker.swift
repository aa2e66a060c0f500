import Beacon
import BikebeaconAPI
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Proximity

/// A moving sentinel's sightings: a missing bike heard from a van or bus on the move is going past,
/// not arriving. Each pass becomes one `passing` sighting, placed where the signal was strongest,
/// and a bike gets at most one per `passInterval` (a bus stuck in traffic beside it does not report
/// it every few seconds). Pure: readings, their places and times are inputs.
///
/// A pass ends when the bike has not been heard for `passGap` seconds, or has lasted `passInterval`.
public struct PassingTracker: Sendable {
    public let passInterval: Double
    public let passGap: Double

    struct Pass: Sendable {
        var firstSeen: Double
        var lastSeen: Double
        var strongest: Int
        var place: SightingPlace
        var zone: Zone
        var distance: Double?
    }

    private var passes: [BeaconID: Pass] = [:]
    /// When each bike's last passing sighting was made, for `passInterval`.
    private var reported: [BeaconID: Double] = [:]

    public init(passInterval: Double, passGap: Double = 30) {
        self.passInterval = passInterval
        self.passGap = passGap
    }

    /// Bikes in a pass now.
    public var passing: Set<BeaconID> { Set(passes.keys) }

    /// One reading of a missing bike, with where the sentinel was and the tracker's estimate then.
    public mutating func observe(_ beacon: BeaconID, time: Double, rssi: Int, place: SightingPlace, estimate: ProximityEstimate?) {
        let zone = estimate?.zone ?? .unknown
        let distance = estimate?.distance
        guard var pass = passes[beacon] else {
            passes[beacon] = Pass(firstSeen: time, lastSeen: time, strongest: rssi, place: place, zone: zone, distance: distance)
            return
        }
        pass.lastSeen = max(pass.lastSeen, time)
        // Ties keep the earlier place: the first moment the signal peaked.
        if rssi > pass.strongest || (pass.place == .noFix && rssi == pass.strongest) {
            pass.strongest = rssi
            pass.place = place
            pass.zone = zone
            pass.distance = distance
        }
        passes[beacon] = pass
    }

    /// The passes over by `now` that may be reported, as sightings; the rest wait. A pass that ends
    /// within `passInterval` of the bike's last report is folded away: the owner already knows.
    public mutating func finish(at now: Double, force: Bool = false, makeID: () -> UUID) -> [Sighting] {
        var sightings: [Sighting] = []
        for (beacon, pass) in passes.sorted(by: { $0.value.firstSeen < $1.value.firstSeen }) {
            let over = force || now - pass.lastSeen >= passGap || now - pass.firstSeen >= passInterval
            guard over else { continue }
            passes[beacon] = nil
            if let last = reported[beacon], pass.lastSeen - last < passInterval { continue }
            reported[beacon] = now
            sightings.append(Sighting(
                id: makeID(), beacon: beacon, event: .passing, time: now, firstSeen: pass.firstSeen, lastSeen: pass.lastSeen,
                rssi: min(Advertisement.rssiRange.upperBound, max(Advertisement.rssiRange.lowerBound, pass.strongest)),
                distance: pass.distance, zone: pass.zone, place: pass.place))
        }
        // Memory stays bounded: a report older than passInterval no longer holds anything back.
        reported = reported.filter { now - $0.value < passInterval }
        return sightings
    }

    /// Drops everything about bikes no longer missing.
    public mutating func prune(isMissing: (BeaconID) -> Bool) {
        passes = passes.filter { isMissing($0.key) }
        reported = reported.filter { isMissing($0.key) }
    }
}
