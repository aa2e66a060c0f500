import Durable
import Logging
import Mail

/// Delivers one mail queued to a bare address (sentinel alerts, abuse reports) and records the outcome in the
/// row's `attempts`, `next_attempt_ms`, `delivered_ms`, `failed_ms` and `last_error`: a failure is retried with
/// the queue's backoff until it gives up. `what` names the mail in the log ("sentinel alert email").
struct AddressedMailRecord: Sendable {
    let table: String
    let what: String
    let database: Database
    let backoff: Backoff
    let logger: Logger

    /// A queued row no mail can be made from: dropped, not retried.
    struct Unreadable: Error {
        let reason: String
    }

    /// Claims row `id` with the delivery lease (replicas send it once), runs `send`, and records what came of it:
    /// delivered, dropped (`Unreadable`, or an SMTP refusal for good) or retried (any other failure). Recorded
    /// even when the server is shutting down and the send was cancelled, so the row does not wait out its lease.
    func deliver(id: Int64, attempts: Int, nextAttempt: Int64, claimedAt time: Int64, smtp: String,
                 now: @escaping @Sendable () -> Int64, send: () async throws -> Void) async {
        guard await DeliveryLease.claim(table, key: "id", id: id, dueAt: nextAttempt, now: time, database: database, logger: logger) else {
            return
        }
        let outcome: DeliveryOutcome
        do {
            try await send()
            outcome = .delivered
        } catch let error as Unreadable {
            outcome = .drop(reason: error.reason)
        } catch let error as SMTPError where !error.isTransient {
            outcome = .drop(reason: error.description)
        } catch {
            outcome = .retry(reason: "\(error) (SMTP \(smtp))")
        }
        await Task.detached { await record(outcome, id: id, attempts: attempts, nextAttempt: nextAttempt, now: now()) }.value
    }

    func record(_ outcome: DeliveryOutcome, id: Int64, attempts previous: Int, nextAttempt: Int64, now time: Int64) async {
        let attempts = previous + 1
        let metadata: Logger.Metadata = ["mail": "\(id)", "table": "\(table)", "attempt": "\(attempts)"]
        /// The row's next attempt, or when it was delivered or given up, and why it failed.
        let change: (next: Int64, delivered: Int64?, failed: Int64?, error: String?)
        switch outcome {
        case .delivered:
            change = (nextAttempt, time, nil, nil)
        case let .retry(reason, after):
            if let delay = backoff.delayMilliseconds(afterFailures: attempts) {
                logger.warning("\(what) failed; will retry", metadata: metadata.merging(["reason": "\(reason)"]) { $1 })
                change = (time + max(delay, after ?? 0), nil, nil, reason)
            } else {
                logger.error("\(what) failed; giving up after the last retry", metadata: metadata.merging(["reason": "\(reason)"]) { $1 })
                change = (nextAttempt, nil, time, reason)
            }
        case let .drop(reason):
            logger.warning("\(what) dropped", metadata: metadata.merging(["reason": "\(reason)"]) { $1 })
            change = (nextAttempt, nil, time, reason)
        }
        do {
            try await database.withSession { db in
                try await db.raw("""
                    UPDATE \(unsafeRaw: table) SET attempts = \(bind: attempts), delivered_ms = \(bind: change.delivered),
                      failed_ms = \(bind: change.failed), next_attempt_ms = \(bind: change.next), last_error = \(bind: change.error)
                    WHERE id = \(bind: id)
                    """).run()
            }
        } catch {
            logger.error("could not record a \(what) delivery", metadata: metadata.merging(["error": "\(error)"]) { $1 })
        }
    }
}
