import Foundation
import Testing
@testable import Sentinel

/// A full state directory must pause durability, not stop the sentinel (found by scripts/soak: the
/// first ENOSPC ended the process with "database or disk is full"). A test cannot fill a disk without
/// root, so the refusal here is an `append` that throws what SQLite throws; the soak fills a real tmpfs.
@Suite struct PendingSightingsTests {
    struct DiskFull: Error {}

    @Test func holdsSightingsInOrderWhileTheOutboxRefusesAndWritesThemWhenItTakesWritesAgain() async throws {
        try await TestValues.withOutbox { outbox in
            let (a, b, c) = (TestValues.sighting(.arrived), TestValues.sighting(.present), TestValues.sighting(.departed))
            var pending = PendingSightings(limit: 100)
            let refused = await pending.commit([a]) { _ in throw DiskFull() }
            #expect(refused == .startedHolding(error: "DiskFull()"))
            let stillFull = await pending.commit([b]) { _ in throw DiskFull() }
            #expect(stillFull == .none, "still full: no second log line")
            #expect(pending.held == [a, b])
            let queued = try await outbox.count()
            #expect(queued == 0)

            let resumed = await pending.commit([c]) { try await outbox.append($0) }
            #expect(resumed == .resumed(written: 3))
            #expect(pending.held.isEmpty)
            let written = try await outbox.peek(limit: 10)
            #expect(written == [a, b, c], "nothing lost and the order kept")
            let idle = await pending.commit([]) { try await outbox.append($0) }
            #expect(idle == .none)
        }
    }

    @Test func aWriteThatFailsHalfwayKeepsTheRestInOrder() async throws {
        try await TestValues.withOutbox { outbox in
            let sightings = (0..<4).map { TestValues.sighting(.present, at: TestValues.t0 + Double($0)) }
            var pending = PendingSightings(limit: 100)
            var allowed = 2
            let change = await pending.commit(sightings) { sighting in
                guard allowed > 0 else { throw DiskFull() }
                allowed -= 1
                try await outbox.append(sighting)
            }
            #expect(change == .startedHolding(error: "DiskFull()"))
            #expect(pending.held == Array(sightings.suffix(2)))
            let written = try await outbox.peek(limit: 10)
            #expect(written == Array(sightings.prefix(2)))
        }
    }

    @Test func staysBoundedDroppingTheOldestPresentFirst() async {
        let arrived = TestValues.sighting(.arrived)
        let presents = (1...3).map { TestValues.sighting(.present, at: TestValues.t0 + Double($0)) }
        let departed = TestValues.sighting(.departed, at: TestValues.t0 + 9)
        var pending = PendingSightings(limit: 3)
        _ = await pending.commit([arrived] + presents + [departed]) { _ in throw DiskFull() }
        #expect(pending.held == [arrived, presents[2], departed], "arrivals and departures outlive 'present' reports")
        #expect(pending.dropped == 2)
    }
}
