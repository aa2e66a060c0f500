import Beacon
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The advertisement intake: each advertisement heard (and, live, each second) through the core, and, for a
/// roaming sentinel, into the passes of missing bikes it goes by. What comes out goes to delivery.
struct AdvertisementIntake {
    let replay: Bool
    let roaming: Roaming?
    /// A roaming sentinel's passes of missing bikes while it moves.
    private var passes: PassingTracker
    private var lastPassCheck = -Double.infinity
    /// The latest time the core has been given, on its own timeline.
    private(set) var lastTime = 0.0

    init(replay: Bool, roaming: Roaming?, passInterval: Double) {
        self.replay = replay
        self.roaming = roaming
        passes = PassingTracker(passInterval: passInterval)
    }

    /// One advertisement, stamped on the core's timeline.
    mutating func observe(_ advertisement: Advertisement, core: inout SentinelCore) async -> SentinelCore.Output {
        lastTime = max(lastTime, advertisement.time)
        // A recorded track plays on the capture's clock (with gpsd there is nothing to advance).
        if replay, let roaming, roaming.client == nil { await roaming.location.advance(to: advertisement.time) }
        var out = replay ? core.replay(advertisement, makeID: { UUID() }) : core.observe(advertisement, makeID: { UUID() })
        if let roaming, core.registry.contains(advertisement.beacon), await !roaming.location.isParked() {
            passes.observe(advertisement.beacon, time: advertisement.time, rssi: advertisement.rssi,
                           place: await roaming.location.place(),
                           estimate: core.estimate(of: advertisement.beacon, at: advertisement.time))
        }
        // Passes end on the capture's clock once a second of it, as live ticks end them.
        if replay, roaming != nil, advertisement.time - lastPassCheck >= 1 {
            lastPassCheck = advertisement.time
            out.sightings += passes.finish(at: advertisement.time, makeID: { UUID() })
        }
        return out
    }

    /// A second passed (live only); `time` on the core's timeline.
    mutating func tick(at time: Double, core: inout SentinelCore) -> SentinelCore.Output {
        lastTime = time
        var out = core.tick(at: time, makeID: { UUID() })
        if roaming != nil {
            passes.prune(isMissing: core.registry.contains)
            // Passes are decided on the core's timeline; like the core's own sightings they leave stamped with the wall clock.
            out.sightings += passes.finish(at: time, makeID: { UUID() }).map { $0.shifted(by: core.stampShift) }
        }
        return out
    }

    /// The end of a capture: the visits still open end, and so do the passes; `time`: when, the capture's last
    /// time and the core's horizon.
    mutating func finishReplay(core: inout SentinelCore) -> (output: SentinelCore.Output, time: Double) {
        var out = core.finishReplay(makeID: { UUID() })
        if roaming != nil { out.sightings += passes.finish(at: lastTime, force: true, makeID: { UUID() }) }
        return (out, lastTime + core.flushHorizon)
    }
}
