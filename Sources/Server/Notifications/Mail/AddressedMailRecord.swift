import Durable
import Logging

/// Records the outcome of one mail queued to a bare address (sentinel alerts, abuse reports), in the row's
/// `attempts`, `next_attempt_ms`, `delivered_ms`, `failed_ms` and `last_error`: a failure is retried with the
/// queue's backoff until it gives up. `what` names the mail in the log ("sentinel alert email").
struct AddressedMailRecord: Sendable {
    let table: String
    let what: String
    let database: Database
    let backoff: Backoff
    let logger: Logger

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
