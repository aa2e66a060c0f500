import Beacon
import BikebeaconAPI
import Foundation
import Registry
import Testing
import TestSupport
@testable import Sentinel

/// The advertisement intake on the real capture (six Govee iBeacons over 386 s): a fixed sentinel's intake is the
/// core and nothing more; a roaming one's turns what it hears on the move into passes.
@Suite struct AdvertisementIntakeTests {
    static let registry = MissingRegistry(version: 1, bikes: [TestValues.bike(SentinelCoreTests.missing)])

    static func core() -> SentinelCore { SentinelCore(registry: registry, sighting: .init(presentInterval: 120)) }

    @Test func aReplayThroughTheIntakeIsTheCoresReplayAndEndsAtTheCapturesEnd() async throws {
        let ads = try await SentinelCoreTests.advertisements()
        var intake = AdvertisementIntake(replay: true, roaming: nil, passInterval: 300)
        var core = Self.core()
        var direct = Self.core()
        var events: [SightingEvent] = []
        for advertisement in ads {
            let out = await intake.observe(advertisement, core: &core)
            let expected = direct.replay(advertisement, makeID: { UUID() })
            #expect(out.sightings.map(\.event) == expected.sightings.map(\.event))
            events += out.sightings.map(\.event)
        }
        #expect(intake.lastTime == ads.map(\.time).max())
        let end = intake.finishReplay(core: &core)
        events += end.output.sightings.map(\.event)
        #expect(end.time == intake.lastTime + core.flushHorizon)
        #expect(events.first == .arrived)
        #expect(events.last == .departed)
    }

    @Test func liveTicksMoveTheIntakesTimeAndEndVisits() async throws {
        var intake = AdvertisementIntake(replay: false, roaming: nil, passInterval: 300)
        var core = Self.core()
        for second in 0..<20 {
            _ = await intake.observe(VisitStoreTests.heard(at: TestValues.t0 + Double(second)), core: &core)
        }
        var events: [SightingEvent] = []
        for second in 20..<1000 {
            events += intake.tick(at: TestValues.t0 + Double(second), core: &core).sightings.map(\.event)
        }
        #expect(intake.lastTime == TestValues.t0 + 999)
        #expect(events.contains(.departed), "\(events)")
    }

    @Test func aRoamingSentinelOnTheMovePassesMissingBikesAndPlacesNoArrival() async throws {
        let track = try RecordedTrack(gpsdJSON: try Data(contentsOf: Paths.fixture("gpsd/haicom-305N.json")))
        let roaming = try #require(Roaming(LocationSettings(source: .recorded(track), passInterval: 30), clock: LiveClock(),
                                           logger: LogLines().logger()))
        var intake = AdvertisementIntake(replay: true, roaming: roaming, passInterval: 30)
        var core = Self.core()
        var sightings: [Sighting] = []
        for advertisement in try await SentinelCoreTests.advertisements() {
            sightings += await roaming.placed(await intake.observe(advertisement, core: &core).sightings)
        }
        sightings += await roaming.placed(intake.finishReplay(core: &core).output.sightings)
        #expect(sightings.contains { $0.event == .passing }, "\(sightings.map(\.event))")
        #expect(!sightings.contains { $0.event == .arrived }, "never parked: on the move a bike is passing, not arriving")
    }
}
