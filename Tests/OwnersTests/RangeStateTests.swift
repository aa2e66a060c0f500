import Beacon
import Owners
import Testing

/// The clock a replayed `range` runs on: a machine too busy to keep up must not turn a bike that
/// was heard into one reported lost, out of time order (seen on CI under load).
struct RangeStateTests {
    @Test func aReplayJudgesStalenessOnlyUpToTheRecordTheReaderHolds() async {
        // A billion times real time: by the first tick the replay clock is hours past every record.
        let state = RangeState(feed: RangeFeed(tracker: RangeTracker(beacon: RangeFeedTests.beacon), bike: nil, source: "test"),
                               speed: 1e9)
        _ = await state.secondsUntilDue(100)
        #expect(await state.receive(RangeFeedTests.advertisement(at: 100)).map(\.event) == [.reading])
        #expect(await state.lapse() == [], "the reader has not got its next record yet")
        _ = await state.secondsUntilDue(110)
        #expect(await state.lapse() == [], "the next record, 10 s later, is within the stale period")
        #expect(await state.receive(RangeFeedTests.advertisement(at: 110)).map(\.event) == [.reading])
        _ = await state.secondsUntilDue(200)
        let lost = await state.lapse()
        #expect(lost.map(\.event) == [.outOfRange], "a 90 s gap is a loss, reported before the next reading")
        #expect(lost.first.map { $0.time < 200 } == true)
        #expect(await state.receive(RangeFeedTests.advertisement(at: 200)).map(\.event) == [.reading])
        await state.finishReplay()
        #expect(await state.lapse(pastTheEnd: false) == [], "JSON lines stop where the capture does, however late the timer fires")
        #expect(await state.lapse().map(\.event) == [.outOfRange], "after the capture ends the screen's clock runs on")
    }
}
