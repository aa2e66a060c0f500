import Foundation
import Testing
@testable import Sentinel

/// A moving sentinel's passes: one `passing` sighting per pass, placed where the signal peaked,
/// at most one per bike per passInterval.
@Suite struct PassingTrackerTests {
    static func place(_ latitude: Double) -> SightingPlace {
        .fix(SightingFix(latitude: latitude, longitude: 5.12, accuracy: 8, time: 1000 + latitude))
    }

    @Test func aPassIsOneSightingWhereTheSignalPeaked() {
        var tracker = PassingTracker(passInterval: 300)
        let rssi = [-90, -84, -77, -70, -66, -61, -66, -72, -80, -88, -93]
        for (second, value) in rssi.enumerated() {
            tracker.observe(TestValues.intel, time: Double(second), rssi: value, place: Self.place(52 + Double(second) / 1000), estimate: nil)
        }
        // Still in earshot, or not yet passGap since the last reading: nothing yet.
        #expect(tracker.finish(at: 20, makeID: { UUID() }).isEmpty)
        let sightings = tracker.finish(at: 40, makeID: { UUID() })
        #expect(sightings.count == 1)
        #expect(sightings.first?.event == .passing && sightings.first?.rssi == -61)
        #expect(sightings.first?.place == Self.place(52.005))
        #expect(sightings.first?.firstSeen == 0 && sightings.first?.lastSeen == 10 && sightings.first?.time == 40)
        #expect(tracker.passing.isEmpty)
    }

    @Test func aBikeHeardForTenMinutesIsReportedOncePerPassInterval() {
        var tracker = PassingTracker(passInterval: 300)
        var sightings: [Sighting] = []
        for second in 0...610 {
            if second % 5 == 0 { tracker.observe(TestValues.intel, time: Double(second), rssi: -70, place: Self.place(52), estimate: nil) }
            sightings += tracker.finish(at: Double(second), makeID: { UUID() })
        }
        // The second pass opens with the first reading after the first report (305 s) and lasts its 300 s.
        #expect(sightings.map(\.time) == [300, 605])
    }

    @Test func aPassSoonAfterTheLastReportIsFoldedAway() {
        var tracker = PassingTracker(passInterval: 300)
        tracker.observe(TestValues.intel, time: 0, rssi: -70, place: Self.place(52), estimate: nil)
        #expect(tracker.finish(at: 30, makeID: { UUID() }).count == 1)
        // The bus comes round again a minute later: the owner already knows.
        tracker.observe(TestValues.intel, time: 90, rssi: -60, place: Self.place(52.1), estimate: nil)
        #expect(tracker.finish(at: 120, makeID: { UUID() }).isEmpty)
        // Seven minutes later it is news again; another bike is news at once.
        tracker.observe(TestValues.intel, time: 420, rssi: -75, place: .noFix, estimate: nil)
        tracker.observe(TestValues.blueCharm, time: 421, rssi: -80, place: Self.place(52.2), estimate: nil)
        let later = tracker.finish(at: 460, makeID: { UUID() })
        #expect(later.map(\.beacon) == [TestValues.intel, TestValues.blueCharm])
        // Without a fix the sighting still goes, saying so.
        #expect(later.first?.place == .noFix)
    }

    @Test func aBikeTakenOffTheListIsForgotten() {
        var tracker = PassingTracker(passInterval: 300)
        tracker.observe(TestValues.intel, time: 0, rssi: -70, place: Self.place(52), estimate: nil)
        tracker.prune(isMissing: { _ in false })
        #expect(tracker.finish(at: 100, force: true, makeID: { UUID() }).isEmpty)
    }
}
