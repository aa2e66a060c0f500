import Testing
@testable import Sentinel

/// A bike heard in the first second after a boot with the clock hours behind: its arrival must reach the
/// server stamped by the server's clock, not dated before the sentinel's enrolment and refused (the field
/// test's failure).
struct ClockHoldTests {
    @Test func sightingsMadeBeforeTheCheckAreMovedByTheShiftLearntSince() throws {
        var hold = ClockHold()
        let arrived = TestValues.sighting(.arrived, at: 1_000)
        hold.remember([arrived], shift: 0)
        #expect(!hold.isEmpty)
        // The server's clock is 5 h ahead of the local one.
        let restamped = hold.restamped(shift: 5 * 3600)
        #expect(restamped.count == 1)
        let moved = try #require(restamped.first)
        #expect(moved.id == arrived.id && moved.time == arrived.time + 5 * 3600)
        #expect(moved.firstSeen == arrived.firstSeen + 5 * 3600 && moved.lastSeen == arrived.lastSeen + 5 * 3600)
        #expect(hold.isEmpty)
    }

    @Test func aClockFoundRightChangesNothing() {
        var hold = ClockHold()
        hold.remember([TestValues.sighting(.arrived, at: 1_000)], shift: 0)
        #expect(hold.restamped(shift: 0).isEmpty)
    }

    /// The field test's second failure: the server answered (the clock checked) while the step that made the arrival
    /// was writing it; the arrival went out on the local clock, five hours early, and was refused.
    @Test func aSightingMadeAsTheCheckLandsIsRestampedToo() throws {
        var hold = ClockHold()
        let present = TestValues.sighting(.present, at: 900)
        let unchecked = hold.step(wrote: [present], shift: 0, checkedShift: nil)
        #expect(unchecked == nil)
        let arrived = TestValues.sighting(.arrived, at: 1_000)
        let checked = hold.step(wrote: [arrived], shift: 0, checkedShift: 5 * 3600)
        let restamped = try #require(checked)
        let shift: Double = 5 * 3600
        #expect(restamped.map(\.id) == [present.id, arrived.id])
        #expect(restamped.map(\.time) == [900 + shift, 1_000 + shift])
        #expect(hold.isEmpty)
        // Checked and right: nothing to move, and the gate may open.
        let right = hold.step(wrote: [arrived], shift: 0, checkedShift: 0)
        #expect(right == [])
    }

    @Test func theReporterWaitsForTheGateAtMostTheLimit() async {
        let gate = StampGate()
        let start = ContinuousClock.now
        await gate.wait(limit: 0.3)
        #expect(ContinuousClock.now - start >= .milliseconds(300))
        gate.open()
        // Open: the wait returns at once, long before its hour (no tighter bound: a starved suite delays any task).
        let opened = ContinuousClock.now
        await gate.wait(limit: 3600)
        #expect(ContinuousClock.now - opened < .seconds(600))
    }
}
