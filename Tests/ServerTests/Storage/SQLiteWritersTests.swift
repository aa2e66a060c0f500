import Foundation
import Logging
import SQLKit
import TestSupport
import Testing

@testable import Server

/// The server and an admin command (`bikebeacon-server sentinels coverage-map …`) are two processes on one SQLite
/// file. A transaction that read and then wrote failed with "database is locked" (SQLITE_BUSY_SNAPSHOT) when the
/// other process committed in between, and the busy timeout cannot help with that: the dashboard test met it once.
/// A transaction takes the write lock as it begins, so the other process waits its turn instead.
struct SQLiteWritersTests {
    @Test func aTransactionThatReadsThenWritesOutlastsAnotherProcessWriting() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("writers-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        try await Database.using(.sqlite(path: path), logger: Logger(label: "test"), migrateAt: nil) { database in
            try await database.withSession { db in
                try await db.raw("PRAGMA journal_mode = WAL").run()
                try await db.raw("PRAGMA busy_timeout = 5000").run()
                try await db.raw("CREATE TABLE counters (id INTEGER PRIMARY KEY, value INTEGER NOT NULL)").run()
                try await db.raw("INSERT INTO counters (id, value) VALUES (1, 0)").run()
            }
            let (read, reading) = AsyncStream.makeStream(of: Void.self)
            async let transaction: Void = database.transaction { db in
                _ = try await db.raw("SELECT value FROM counters WHERE id = 1").first()
                reading.yield()
                try await Task.sleep(for: .milliseconds(500))
                try await db.raw("UPDATE counters SET value = value + 1 WHERE id = 1").run()
            }
            var signals = read.makeAsyncIterator()
            _ = await signals.next()
            // Another process writes while the transaction holds what it read: it waits (up to 5 s) rather than wins.
            let other = try await run(path: "/usr/bin/env", ["python3", "-c", """
                import sqlite3, sys
                db = sqlite3.connect(sys.argv[1], timeout=5)
                db.execute("UPDATE counters SET value = value + 10 WHERE id = 1")
                db.commit()
                """, path])
            try await transaction
            #expect(other.status == 0, "the other process's write: \(other.stderr)")
            let value = try await database.withSession {
                try await $0.raw("SELECT value FROM counters WHERE id = 1").first()?.decode(column: "value", as: Int.self)
            }
            #expect(value == 11)
        }
    }
}
