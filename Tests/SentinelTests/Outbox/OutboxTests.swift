import Foundation
import SQLiteNIO
import Testing
import TestSupport
@testable import Sentinel
import Subprocesses

@Suite struct OutboxTests {
    @Test func keepsSightingsInOrderUntilAcknowledged() async throws {
        try await TestValues.withOutbox { outbox in
            let sightings = (0..<5).map { TestValues.sighting(.present, at: TestValues.t0 + Double($0)) }
            for s in sightings { try await outbox.append(s) }
            #expect(try await outbox.peek(limit: 3) == Array(sightings.prefix(3)))
            // Peeking does not remove.
            #expect(try await outbox.count() == 5)
            let removed = try await outbox.acknowledge([sightings[1].id, sightings[3].id, UUID()])
            #expect(removed == 2)
            #expect(try await outbox.peek(limit: 10) == [sightings[0], sightings[2], sightings[4]])
        }
    }

    @Test func appendingTheSameSightingTwiceQueuesItOnce() async throws {
        try await TestValues.withOutbox { outbox in
            let s = TestValues.sighting(.arrived)
            try await outbox.append(s)
            try await outbox.append(s)
            #expect(try await outbox.count() == 1)
        }
    }

    @Test func survivesCloseAndReopen() async throws {
        let path = try TestValues.temporaryDirectory().appendingPathComponent("outbox.sqlite").path
        let sightings = [TestValues.sighting(.arrived), TestValues.sighting(.present), TestValues.sighting(.departed)]
        try await TestValues.withOutbox(path: path) { outbox in
            for s in sightings { try await outbox.append(s) }
            try await outbox.acknowledge([sightings[0].id])
        }
        try await TestValues.withOutbox(path: path) { reopened in
            let remaining = try await reopened.peek(limit: 10)
            #expect(remaining == Array(sightings.dropFirst()))
        }
    }

    @Test func usesWALWithFullSync() async throws {
        let path = try TestValues.temporaryDirectory().appendingPathComponent("outbox.sqlite").path
        try await TestValues.withOutbox(path: path) { outbox in
            try await outbox.append(TestValues.sighting(.arrived))
            // The WAL file exists while the connection is open: the journal mode took effect.
            #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        }
    }

    @Test func whenFullDropsTheOldestPresentFirst() async throws {
        let path = try TestValues.temporaryDirectory().appendingPathComponent("outbox.sqlite").path
        try await TestValues.withOutbox(path: path, maxRows: 4) { outbox in
            let arrived = TestValues.sighting(.arrived, at: TestValues.t0)
            let p1 = TestValues.sighting(.present, at: TestValues.t0 + 1)
            let p2 = TestValues.sighting(.present, at: TestValues.t0 + 2)
            let p3 = TestValues.sighting(.present, at: TestValues.t0 + 3)
            let departed = TestValues.sighting(.departed, at: TestValues.t0 + 4)
            for s in [arrived, p1, p2, p3, departed] { try await outbox.append(s) }
            #expect(try await outbox.peek(limit: 10) == [arrived, p2, p3, departed])
        }
    }

    @Test func neverDropsArrivalsOrDepartures() async throws {
        let path = try TestValues.temporaryDirectory().appendingPathComponent("outbox.sqlite").path
        try await TestValues.withOutbox(path: path, maxRows: 2) { outbox in
            let kept = (0..<4).map { TestValues.sighting($0.isMultiple(of: 2) ? .arrived : .departed, at: TestValues.t0 + Double($0)) }
            for s in kept { try await outbox.append(s) }
            // A present arriving at a full outbox of arrivals/departures is the one dropped.
            try await outbox.append(TestValues.sighting(.present, at: TestValues.t0 + 9))
            #expect(try await outbox.peek(limit: 10) == kept)
            #expect(try await outbox.counts() == [.arrived: 2, .departed: 2])
        }
    }

    /// An upgraded sentinel opens the outbox an earlier release made (seq AUTOINCREMENT and an
    /// (event, seq) index): what it queued is still sent in order, and trimming still works.
    @Test func anOutboxFromAnEarlierReleaseKeepsItsQueue() async throws {
        let path = try TestValues.temporaryDirectory().appendingPathComponent("outbox.sqlite").path
        let queued = [TestValues.sighting(.arrived, at: TestValues.t0), TestValues.sighting(.present, at: TestValues.t0 + 1)]
        let earlier = try await SQLiteConnection.open(storage: .file(path: path))
        for statement in [
            "PRAGMA journal_mode = WAL",
            "CREATE TABLE outbox (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, event TEXT NOT NULL, body TEXT NOT NULL)",
            "CREATE INDEX outbox_event_seq ON outbox(event, seq)",
        ] {
            _ = try await earlier.query(statement)
        }
        for sighting in queued {
            _ = try await earlier.query("INSERT INTO outbox (id, event, body) VALUES (?, ?, ?)", [
                .text(sighting.id.uuidString.lowercased()), .text(sighting.event.rawValue),
                .text(String(decoding: try JSONEncoder().encode(sighting), as: UTF8.self)),
            ])
        }
        try await earlier.close()

        let later = [TestValues.sighting(.present, at: TestValues.t0 + 2), TestValues.sighting(.departed, at: TestValues.t0 + 3)]
        try await TestValues.withOutbox(path: path, maxRows: 3) { outbox in
            for sighting in later { try await outbox.append(sighting) }
            // Full at 3: the oldest present went, the rest keep their order.
            #expect(try await outbox.peek(limit: 10) == [queued[0], later[0], later[1]])
        }
    }

    /// SIGTERM cancels the sentinel's task, maybe while the outbox is opening: the handle must
    /// still close (SQLiteNIO's plain close is skipped in a cancelled task, and a debug build
    /// then dies on its "not closed before deinitializing" assertion).
    @Test func aCancelledTaskStillClosesTheDatabase() async throws {
        let path = try TestValues.temporaryDirectory().appendingPathComponent("outbox.sqlite").path
        let connection = try await SQLiteConnection.open(storage: .file(path: path))
        let closing = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            await #expect(throws: CancellationError.self) { try await connection.close() }
            #expect(!connection.isClosed)
            try await Outbox.closeEvenIfCancelled(connection)
        }
        try await closing.value
        #expect(connection.isClosed)
    }

    @Test func aPathThatCannotBeOpenedIsATypedError() async throws {
        await #expect(throws: OutboxError.self) {
            _ = try await Outbox.open(path: "/nonexistent-dir-\(UUID().uuidString)/outbox.sqlite")
        }
    }
}

@Suite struct OutboxCrashTests {
    /// A real child process appends as fast as it can and is killed with SIGKILL mid-stream;
    /// every sighting it reported as committed must be in the outbox afterwards, readable.
    @Test func aSIGKILLedWriterLosesNothingItCommitted() async throws {
        let path = try TestValues.temporaryDirectory().appendingPathComponent("outbox.sqlite").path
        let out = path + ".committed"
        let process = try ChildProcess.spawn(Paths.executable("outbox-writer").path, [path, "100000"], stdout: .file(out))
        func text() -> String { (try? String(contentsOfFile: out, encoding: .utf8)) ?? "" }
        // Wait until it has committed a good number, then kill it without warning.
        while text().split(separator: "\n").count < 150, process.isRunning {
            try await Task.sleep(for: .milliseconds(5))
        }
        process.send(SIGKILL)
        let status = try await exitStatus(of: process)
        let text = text()
        #expect(status == 128 + SIGKILL, "killed by SIGKILL, not ended by itself")
        // The last line may be torn by the kill; count complete lines only.
        let committed = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().compactMap { Int($0) }
        #expect(committed.count >= 150)

        try await TestValues.withOutbox(path: path, maxRows: 1_000_000) { outbox in
            let stored = try await outbox.peek(limit: 1_000_000)
            let storedIndices = Set(stored.compactMap { Int($0.id.uuidString.suffix(12)) })
            #expect(Set(committed).isSubset(of: storedIndices))
            // At most the one append in flight when the kill came may be there unreported.
            #expect(stored.count <= committed.count + 1)
        }
    }
}
