import Synchronization
import Testing
@testable import Server

/// Closed streams' memory goes back to the system once per `every` closes, not at each close (a trim walks the heap).
@Suite struct MemoryTrimTests {
    @Test func trimsOncePerBurstOfCloses() {
        let trims = Trims()
        let trim = MemoryTrim(every: 3) { trims.count.add(1, ordering: .relaxed) }
        for _ in 0..<2 { trim.streamClosed() }
        #expect(trims.count.load(ordering: .relaxed) == 0)
        trim.streamClosed()
        #expect(trims.count.load(ordering: .relaxed) == 1)
        for _ in 0..<5 { trim.streamClosed() }
        #expect(trims.count.load(ordering: .relaxed) == 2)
    }
}

private final class Trims: Sendable {
    let count = Atomic<Int>(0)
}
