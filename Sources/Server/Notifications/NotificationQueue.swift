import BikebeaconAPI
import Durable
import Foundation
import Logging
import SQLKit

/// The durable queue of notifications, drained by the delivery worker next to webhooks: rows
/// live in the database (a restart loses nothing), failures are retried with the webhooks'
/// backoff, and each row is leased before sending so replicas sharing a database send it once.
struct NotificationQueue: Sendable {
    let database: Database
    let dispatcher: NotificationDispatcher
    let senders: [NotificationChannel: any NotificationSender]
    let backoff: Backoff
    let logger: Logger
    let now: @Sendable () -> Int64
    /// Ends missing periods that ran out and reminds their owners first; nil where a test drives it itself.
    var missingExpiry: MissingExpiry? = nil
    /// Alert mails about sentinels, sent in the same rounds (their own table: their readers need no account).
    var alerts: SentinelAlertStore? = nil
    /// The operator's mails about tags reported hidden on someone; nil without SMTP.
    var abuseMails: AbuseMailQueue? = nil
    /// How long a closed report case's sealed sightings are kept (`serve --sealed-retention-days`); nil keeps them.
    var sealedRetention: Int64? = nil

    private struct Row: Sendable {
        var id: Int64
        var accountID: String
        var channel: String
        var target: String
        var payload: String
        var attempts: Int
        var nextAttempt: Int64
    }

    /// Sends what is due: windows that ended with events held back, bikes' date reminders, missing periods
    /// ending or ended, then queued rows.
    func deliverDue() async throws {
        try await dispatcher.flushDue(now: now(), database: database)
        try await BikeDateStore(database: database).remindDue(now: now(), dispatcher: dispatcher)
        try await missingExpiry?.run(now: now())
        try await alerts?.deliverDue()
        try await abuseMails?.deliverDue()
        if let sealedRetention {
            for caseID in try await SightingSeal.expire(retention: sealedRetention, now: now(), database: database) {
                logger.notice("a closed report case's sealed sightings reached the end of their retention and were deleted", metadata: ["case": "\(caseID)"])
            }
        }
        let channels = senders.keys.map(\.rawValue)
        guard !channels.isEmpty else { return }
        let time = now()
        let rows = try await database.withSession { db in
            try await db.raw("""
                SELECT id, account_id, channel, target, payload, attempts, next_attempt_ms FROM notification_deliveries
                WHERE delivered_ms IS NULL AND failed_ms IS NULL AND next_attempt_ms <= \(bind: time)
                  AND channel IN (\(binds: channels))
                ORDER BY next_attempt_ms LIMIT 50
                """).all().map { row in
                Row(id: try row.decode(column: "id", as: Int64.self), accountID: try row.decode(column: "account_id", as: String.self),
                    channel: try row.decode(column: "channel", as: String.self), target: try row.decode(column: "target", as: String.self),
                    payload: try row.decode(column: "payload", as: String.self), attempts: try row.decode(column: "attempts", as: Int.self),
                    nextAttempt: try row.decode(column: "next_attempt_ms", as: Int64.self))
            }
        }
        await withTaskGroup(of: Void.self) { group in
            for row in rows {
                group.addTask { await deliver(row, claimedAt: time) }
            }
        }
    }

    private func deliver(_ row: Row, claimedAt time: Int64) async {
        guard await DeliveryLease.claim("notification_deliveries", key: "id", id: row.id, dueAt: row.nextAttempt, now: time,
                                        database: database, logger: logger) else { return }
        let outcome: DeliveryOutcome
        if let channel = NotificationChannel(rawValue: row.channel), let sender = senders[channel],
           let notification = try? JSONDecoder().decode(OwnerNotification.self, from: Data(row.payload.utf8)) {
            outcome = await sender.deliver(QueuedNotification(
                id: row.id, channel: channel, accountID: row.accountID, target: row.target, notification: notification,
                attempts: row.attempts))
        } else {
            outcome = .drop(reason: "the queued row cannot be read back (channel \(row.channel))")
        }
        // Record even when the server is shutting down (the send was cancelled): otherwise the row
        // waits out its lease after the restart. The worker awaits this before the database closes.
        await Task.detached { await record(outcome, for: row) }.value
    }

    private func record(_ outcome: DeliveryOutcome, for row: Row) async {
        let attempts = row.attempts + 1
        let time = now()
        let metadata: Logger.Metadata = ["delivery": "\(row.id)", "channel": "\(row.channel)", "attempt": "\(attempts)"]
        do {
            try await database.withSession { db in
                switch outcome {
                case .delivered:
                    try await db.raw("""
                        UPDATE notification_deliveries SET attempts = \(bind: attempts), delivered_ms = \(bind: time)
                        WHERE id = \(bind: row.id)
                        """).run()
                case let .retry(reason, after):
                    if let delay = backoff.delayMilliseconds(afterFailures: attempts) {
                        let next = time + max(delay, after ?? 0)
                        logger.warning("notification delivery failed; will retry", metadata: metadata.merging(
                            ["reason": "\(reason)", "retry_in_ms": "\(next - time)"]) { $1 })
                        try await db.raw("""
                            UPDATE notification_deliveries SET attempts = \(bind: attempts), next_attempt_ms = \(bind: next),
                              last_error = \(bind: reason) WHERE id = \(bind: row.id)
                            """).run()
                    } else {
                        logger.error("notification delivery failed; giving up after the last retry",
                                     metadata: metadata.merging(["reason": "\(reason)"]) { $1 })
                        try await db.raw("""
                            UPDATE notification_deliveries SET attempts = \(bind: attempts), failed_ms = \(bind: time),
                              last_error = \(bind: reason) WHERE id = \(bind: row.id)
                            """).run()
                    }
                case let .drop(reason):
                    logger.warning("notification dropped", metadata: metadata.merging(["reason": "\(reason)"]) { $1 })
                    try await db.raw("""
                        UPDATE notification_deliveries SET attempts = \(bind: attempts), failed_ms = \(bind: time),
                          last_error = \(bind: reason) WHERE id = \(bind: row.id)
                        """).run()
                }
            }
        } catch {
            logger.error("could not record notification delivery", metadata: metadata.merging(["error": "\(error)"]) { $1 })
        }
    }
}
