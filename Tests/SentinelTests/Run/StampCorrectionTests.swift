import Testing
@testable import Sentinel

/// Sightings written before the clock was checked are restamped in the outbox once it is; only then may the
/// reporter send (the gate opens).
@Suite struct StampCorrectionTests {
    @Test func sightingsWrittenBeforeTheCheckAreMovedByWhatItGaveThenTheGateOpens() async throws {
        try await TestValues.withOutbox { outbox in
            let gate = StampGate()
            var correction = StampCorrection(gate: gate, outbox: outbox, logger: LogLines().logger())
            let early = TestValues.sighting(.arrived)
            try await outbox.append(early)
            await correction.step(wrote: [early], shift: 0, checkedShift: nil)
            #expect(!gate.isOpen)
            #expect(try await outbox.peek(limit: 10) == [early], "unchecked: left as written")

            // The check says this clock is an hour behind: the next step writes with the new shift.
            let late = TestValues.sighting(.present, at: TestValues.t0 + 3600 + 60)
            try await outbox.append(late)
            await correction.step(wrote: [late], shift: 3600, checkedShift: 3600)
            #expect(gate.isOpen)
            let stored = try await outbox.peek(limit: 10)
            #expect(stored.map(\.id) == [early.id, late.id])
            #expect(stored.map(\.time) == [TestValues.t0 + 3600, TestValues.t0 + 3600 + 60])
        }
    }

    @Test func aCheckThatMovesNothingStillOpensTheGate() async throws {
        try await TestValues.withOutbox { outbox in
            let gate = StampGate()
            var correction = StampCorrection(gate: gate, outbox: outbox, logger: LogLines().logger())
            await correction.step(wrote: [], shift: 0, checkedShift: 0)
            #expect(gate.isOpen)
        }
    }
}
