import Logging
import SQLKit

/// Replicas sharing a database read the same due rows. A row is sent only by the worker whose
/// compare-and-set moves its next attempt ahead by `duration`; the other workers' updates match
/// nothing. A worker that dies mid-send leaves the row to be retried when the lease ends.
enum DeliveryLease {
    /// Longer than a send can take (connect 5 s + request 10 s), short enough that a crash mid-send delays it little.
    static let duration: Int64 = 30_000

    /// Whether this worker now holds row `id` of `table` (key column `key`), last seen due at `dueAt`.
    /// A database error means no: the row stays queued for the next round, and the log says so.
    static func claim(_ table: String, key: String, id: Int64, dueAt: Int64, now: Int64, database: Database, logger: Logger) async -> Bool {
        do {
            return try await database.withSession { db in
                try await db.raw("""
                    UPDATE \(unsafeRaw: table) SET next_attempt_ms = \(bind: now + duration)
                    WHERE \(unsafeRaw: key) = \(bind: id) AND next_attempt_ms = \(bind: dueAt) AND delivered_ms IS NULL AND failed_ms IS NULL
                    RETURNING \(unsafeRaw: key)
                    """).first() != nil
            }
        } catch {
            logger.error("could not claim a queued delivery; it stays queued for the next round",
                         metadata: ["table": "\(table)", "id": "\(id)", "error": "\(error)"])
            return false
        }
    }
}
