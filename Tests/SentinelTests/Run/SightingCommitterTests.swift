import Synchronization
import Testing
@testable import Sentinel

/// The sighting committer: every sighting is logged and counted, written in order, and while the outbox refuses
/// writes, held with one log line when holding starts, one when it ends, and one the first time some are dropped.
@Suite struct SightingCommitterTests {
    struct DiskFull: Error {}

    /// An outbox that refuses writes while `full`, and keeps what it takes in order.
    final class Disk: Sendable {
        let full = Mutex(false)
        let written = Mutex<[Sighting]>([])

        func append(_ sighting: Sighting) throws {
            if full.withLock({ $0 }) { throw DiskFull() }
            written.withLock { $0.append(sighting) }
        }
    }

    static func committer(_ disk: Disk, limit: Int = 100, log: LogLines) -> SightingCommitter {
        SightingCommitter(path: "/state/outbox.sqlite", limit: limit, logger: log.logger()) { try disk.append($0) }
    }

    @Test func eachSightingIsLoggedCountedAndWrittenInOrder() async {
        let (disk, log) = (Disk(), LogLines())
        var committer = Self.committer(disk, log: log)
        let sightings = [TestValues.sighting(.arrived), TestValues.sighting(.present, at: TestValues.t0 + 60)]
        await committer.commit(sightings)
        await committer.commit([])
        #expect(disk.written.withLock { $0 } == sightings)
        #expect(committer.created == 2)
        #expect(log.all == ["info sighting", "info sighting"])
    }

    @Test func aFullDiskIsToldOnceWhenHoldingStartsAndOnceWhenItEnds() async {
        let (disk, log) = (Disk(), LogLines())
        var committer = Self.committer(disk, log: log)
        let (a, b, c) = (TestValues.sighting(.arrived), TestValues.sighting(.present), TestValues.sighting(.departed))
        disk.full.withLock { $0 = true }
        await committer.commit([a])
        await committer.commit([b])
        #expect(committer.held == [a, b])
        #expect(log.count("error cannot write to the outbox") == 1, "\(log.all)")
        disk.full.withLock { $0 = false }
        // Nothing new: the held ones still go out at the next step.
        await committer.commit([])
        #expect(committer.held.isEmpty)
        #expect(log.count("notice the outbox takes writes again") == 1, "\(log.all)")
        await committer.commit([c])
        #expect(disk.written.withLock { $0 } == [a, b, c])
        #expect(committer.created == 3)
    }

    @Test func droppingIsToldOnceWhileHoldingAndAgainAfterTheOutboxCameBack() async {
        let (disk, log) = (Disk(), LogLines())
        var committer = Self.committer(disk, limit: 2, log: log)
        disk.full.withLock { $0 = true }
        for second in 0..<5 { await committer.commit([TestValues.sighting(.present, at: TestValues.t0 + Double(second))]) }
        #expect(committer.held.count == 2)
        #expect(log.count("warning too many sightings held in memory") == 1, "\(log.all)")
        disk.full.withLock { $0 = false }
        await committer.commit([])
        disk.full.withLock { $0 = true }
        for second in 5..<8 { await committer.commit([TestValues.sighting(.present, at: TestValues.t0 + Double(second))]) }
        #expect(log.count("warning too many sightings held in memory") == 2, "\(log.all)")
    }

    @Test func whatIsStillHeldAtTheEndIsSaidToBeLost() async {
        let (disk, log) = (Disk(), LogLines())
        var committer = Self.committer(disk, log: log)
        disk.full.withLock { $0 = true }
        await committer.commit([TestValues.sighting(.arrived)])
        await committer.finish()
        #expect(log.count("error sightings held in memory could not be written to the outbox before the end and are lost") == 1)

        let (later, quiet) = (Disk(), LogLines())
        var recovered = Self.committer(later, log: quiet)
        later.full.withLock { $0 = true }
        await recovered.commit([TestValues.sighting(.arrived)])
        later.full.withLock { $0 = false }
        await recovered.finish()
        #expect(later.written.withLock { $0.count } == 1, "the last try at the end writes what was held")
        #expect(quiet.count("error sightings held in memory") == 0)
    }
}
