import Beacon
import Foundation
import Owners
import Scanning
import Testing
import TestSupport

/// The pure state behind `range`: readings in, reports out, time as an input.
struct RangeFeedTests {
    static let beacon = BeaconID("494E5445-4C4C-495F-524F-434B535F4857:20596:25984")!
    static let other = BeaconID("494E5445-4C4C-495F-524F-434B535F4857:20596:32020")!

    static func advertisement(_ beacon: BeaconID = beacon, rssi: Int = -60, at time: Double) -> Advertisement {
        Advertisement(beacon: beacon, rssi: rssi, measuredPower: -62, address: nil, time: time)
    }

    @Test func goingOutOfRangeIsReportedOnceWhenTheStalePeriodEnds() throws {
        var feed = RangeFeed(tracker: RangeTracker(beacon: Self.beacon), bike: "red", source: "test")
        #expect(feed.lapse(until: 1000) == [], "nothing to lose before the first reading")
        #expect(feed.receive(Self.advertisement(Self.other, at: 100)) == [], "other beacons are ignored")
        let first = feed.receive(Self.advertisement(at: 100))
        #expect(first.map(\.event) == [.reading])
        #expect(first.first?.zone == "near")
        #expect(first.first?.bike == "red")
        #expect(feed.lapse(until: 120) == [])
        let lost = feed.lapse(until: 200)
        #expect(lost.map(\.event) == [.outOfRange])
        let stale = try #require(lost.first)
        #expect(stale.zone == "out_of_range" && stale.distance == nil && stale.trend == nil)
        #expect(abs(stale.time - (100 + feed.tracker.staleAfter)) < 0.01, "stamped when the stale period ended, not when noticed")
        #expect(stale.lastHeard == 100 && stale.rssi == -60)
        #expect(feed.lapse(until: 300) == [], "reported once")
        #expect(feed.receive(Self.advertisement(at: 400)).map(\.event) == [.reading])
    }

    @Test func aReadingAfterALongGapFirstReportsTheLoss() {
        var feed = RangeFeed(tracker: RangeTracker(beacon: Self.beacon), bike: nil, source: "test")
        _ = feed.receive(Self.advertisement(at: 0))
        let reports = feed.receive(Self.advertisement(at: 500))
        #expect(reports.map(\.event) == [.outOfRange, .reading])
        #expect(reports.map(\.time) == [reports[0].time, 500])
        #expect(reports[0].time < 500)
    }

    @Test func realCaptureKeepsHistoryAndViewInStep() async throws {
        var feed = RangeFeed(tracker: RangeTracker(beacon: Self.beacon), bike: nil, source: "test")
        var reports: [RangeReport] = []
        for try await batch in CaptureScanner(path: Paths.fixture("captures/govee-h5100.btsnoop").path).advertisementBatches() {
            for advertisement in batch { reports += feed.receive(advertisement) }
        }
        #expect(reports.filter { $0.event == .reading }.count == 17)
        #expect(feed.tracker.history.samples.count == 17)
        let last = try #require(feed.tracker.history.last)
        let view = feed.view(at: last.time + 1)
        #expect(view.estimate.zone != .unknown)
        #expect(view.secondsSinceHeard.map { abs($0 - 1) < 1e-6 } == true)
        #expect(feed.view(at: last.time + 3600).zoneLabel == "OUT OF RANGE")
    }

    @Test func historyIsBounded() {
        var tracker = RangeTracker(beacon: Self.beacon, historyCapacity: 10)
        for i in 0..<100 { tracker.record(Self.advertisement(rssi: -50 - i % 20, at: Double(i))) }
        #expect(tracker.history.samples.count == 10)
        #expect(tracker.history.samples.first?.time == 90)
    }

    @Test func replayClockPlaysTheCaptureAtItsPaceTimesSpeed() {
        let clock = ReplayClock(origin: 1000, speed: 20)
        #expect(clock.captureTime(elapsed: 0.5) == 1010)
        #expect(clock.elapsed(until: 1100) == 5)
        #expect(clock.elapsed(until: 990) < 0, "a record stamped before the start is due at once")
    }
}
