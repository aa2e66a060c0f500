import Foundation
import Logging
import SQLKit
import Testing

@testable import Server

/// A `Database` let go without `shutdown()`: a command or a test that throws between opening it and
/// its last step. async-kit stops a debug process when a connection pool goes unclosed, and a full
/// run of the suite was lost so once (one test's early error, every other test's result with it).
/// Without `Database.deinit` closing the pools, this test stops the test process.
struct DatabaseLifetimeTests {
    @Test(arguments: [Backend.sqlite, .postgres])
    func aDatabaseLetGoWithoutShutdownClosesItself(_ backend: Backend) async throws {
        if backend == .postgres, Backend.postgresURL == nil { return }
        let harness = try await Harness.make(backend)
        var connections: [Int] = []
        for _ in 0..<3 {
            let dropped = try Database(url: harness.database.url, logger: Harness.logger, maxConnections: 2)
            let pid = try await dropped.withSession { db in
                try await db.raw(backend == .postgres ? "SELECT pg_backend_pid() AS one" : "SELECT 1 AS one").first()?.decode(column: "one", as: Int.self)
            }
            connections.append(try #require(pid))
        }
        // The pools close on their own loops; the database is still there for the next to open.
        let count = try await harness.database.withSession { try await $0.raw("SELECT COUNT(*) AS n FROM accounts").first()?.decode(column: "n", as: Int.self) }
        #expect(count == 0)
        if backend == .postgres {
            // PostgreSQL drops a database only once no connection is open on it: the let-go ones must close.
            for _ in 0..<50 where try await stillOpen(connections, harness) > 0 { try await Task.sleep(for: .milliseconds(100)) }
            #expect(try await stillOpen(connections, harness) == 0, "the let-go databases' connections were not closed")
        }
        await harness.cleanup()
    }

    /// How many of the connections `pids` PostgreSQL still has open.
    private func stillOpen(_ pids: [Int], _ harness: Harness) async throws -> Int {
        let list = pids.map(String.init).joined(separator: ",")
        return try await harness.database.withSession { db in
            try await db.raw("SELECT COUNT(*) AS n FROM pg_stat_activity WHERE pid IN (\(unsafeRaw: list))").first()?.decode(column: "n", as: Int.self) ?? 0
        }
    }
}
