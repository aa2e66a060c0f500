import AsyncHTTPClient
import Durable
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import SQLKit
import ServiceLifecycle

/// Delivers queued webhook events (and, through `NotificationQueue`, the other notification
/// channels): POSTs the JSON with its signature, and on failure schedules
/// the next attempt with backoff. The queue lives in the database, so a restart loses nothing, and
/// each row is leased before sending, so replicas sharing the database send it once. Delivery is
/// still at least once (a crash between the send and its record repeats it); receivers can drop
/// repeats by the `BikeBeacon-Event-ID` header.
struct WebhookWorker: Service {
    let database: Database
    let backoff: Backoff
    let http: OutboundHTTP
    let notifications: NotificationQueue
    let logger: Logger
    let now: @Sendable () -> Int64

    static let timeout: TimeAmount = .seconds(10)
    /// The longest an idle worker sleeps without a signal: a safety net, not the way work arrives.
    static let idleCheck: Int64 = 60_000

    func run() async throws {
        // Stop between deliveries when the server shuts down; undelivered events stay queued in the database.
        await cancelWhenGracefulShutdown { await loop() }
    }

    /// Delivers what is due, then sleeps until the next retry is due or new events are signalled.
    private func loop() async {
        let signal = database.events
        var seen = await signal.count(.deliveries)
        while !Task.isCancelled {
            var sleep = Self.idleCheck
            // A shutdown cancels a check midway: nothing failed, and what was due stays queued.
            do {
                try await deliverDue()
            } catch {
                if Task.isCancelled { return }
                logger.error("webhook queue check failed; retrying shortly", metadata: ["error": "\(error)"])
                sleep = 1000
            }
            do {
                try await notifications.deliverDue()
            } catch {
                if Task.isCancelled { return }
                logger.error("notification queue check failed; retrying shortly", metadata: ["error": "\(error)"])
                sleep = 1000
            }
            if let next = try? await nextAttempt() { sleep = min(sleep, max(0, next - now())) }
            seen = await signal.wait(.deliveries, after: seen, timeout: .milliseconds(sleep))
        }
    }

    /// When the earliest pending delivery (webhook, notification or date reminder) is due, if any.
    private func nextAttempt() async throws -> Int64? {
        try await database.withSession { db in
            try await db.raw("""
                SELECT MIN(next) AS next FROM (
                  SELECT MIN(next_attempt_ms) AS next FROM deliveries WHERE delivered_ms IS NULL AND failed_ms IS NULL
                  UNION ALL
                  SELECT MIN(next_attempt_ms) AS next FROM notification_deliveries WHERE delivered_ms IS NULL AND failed_ms IS NULL
                  UNION ALL
                  SELECT MIN(remind_ms) AS next FROM bike_dates WHERE reminder = 'scheduled'
                  UNION ALL
                  SELECT MIN(next_attempt_ms) AS next FROM sentinel_alerts WHERE delivered_ms IS NULL AND failed_ms IS NULL
                ) pending
                """).first()?.decode(column: "next", as: Int64?.self)
        }
    }

    struct Due: Sendable {
        var eventID: Int64
        var url: String
        var secret: String
        var attempts: Int
        var payload: String
        var nextAttempt: Int64
    }

    func deliverDue() async throws {
        let dueTime = now()
        let due = try await database.withSession { db in
            try await db.raw("""
                SELECT d.event_id AS event_id, d.url AS url, d.secret AS secret, d.attempts AS attempts, e.payload AS payload,
                  d.next_attempt_ms AS next_attempt_ms
                FROM deliveries d JOIN events e ON e.id = d.event_id
                WHERE d.delivered_ms IS NULL AND d.failed_ms IS NULL AND d.next_attempt_ms <= \(bind: dueTime)
                ORDER BY d.next_attempt_ms LIMIT 50
                """).all().map { row in
                Due(eventID: try row.decode(column: "event_id", as: Int64.self), url: try row.decode(column: "url", as: String.self),
                    secret: try row.decode(column: "secret", as: String.self), attempts: try row.decode(column: "attempts", as: Int.self),
                    payload: try row.decode(column: "payload", as: String.self),
                    nextAttempt: try row.decode(column: "next_attempt_ms", as: Int64.self))
            }
        }
        for item in due { await deliver(item, claimedAt: dueTime) }
    }

    private func deliver(_ item: Due, claimedAt time: Int64) async {
        guard await DeliveryLease.claim("deliveries", key: "event_id", id: item.eventID, dueAt: item.nextAttempt, now: time,
                                        database: database, logger: logger) else { return }
        let body = Array(item.payload.utf8)
        var request = HTTPClientRequest(url: item.url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: WebhookSignature.header, value: WebhookSignature.sign(body: body, secret: item.secret))
        request.headers.add(name: "BikeBeacon-Event-ID", value: String(item.eventID))
        request.body = .bytes(ByteBuffer(bytes: body))
        var failure: String?
        do {
            let response = try await http.execute(request, timeout: Self.timeout)
            if !(200..<300).contains(response.status.code) { failure = "receiver answered \(response.status.code)" }
        } catch let refused as OutboundHTTP.Refused {
            logger.warning("webhook send refused", metadata: ["event": "\(item.eventID)", "reason": "\(refused)"])
            failure = refused.description
        } catch {
            failure = "\(error)"
        }
        // Record even when the server is shutting down (the send was cancelled): otherwise the row
        // waits out its lease after the restart. The worker awaits this before the database closes.
        let outcome = failure
        await Task.detached { await record(outcome, for: item) }.value
    }

    private func record(_ outcome: String?, for item: Due) async {
        let attempts = item.attempts + 1
        let time = now()
        do {
            try await database.withSession { db in
                if let failure = outcome {
                    if let delay = backoff.delayMilliseconds(afterFailures: attempts) {
                        try await db.raw("""
                            UPDATE deliveries SET attempts = \(bind: attempts), next_attempt_ms = \(bind: time + delay),
                              last_error = \(bind: failure) WHERE event_id = \(bind: item.eventID)
                            """).run()
                    } else {
                        try await db.raw("""
                            UPDATE deliveries SET attempts = \(bind: attempts), failed_ms = \(bind: time),
                              last_error = \(bind: failure) WHERE event_id = \(bind: item.eventID)
                            """).run()
                    }
                } else {
                    try await db.raw("""
                        UPDATE deliveries SET attempts = \(bind: attempts), delivered_ms = \(bind: time)
                        WHERE event_id = \(bind: item.eventID)
                        """).run()
                }
            }
        } catch {
            logger.error("could not record a webhook delivery; it may be sent again",
                         metadata: ["eventID": "\(item.eventID)", "error": "\(error)"])
        }
        if let outcome {
            logger.warning("webhook delivery failed; it will be retried with backoff",
                           metadata: ["eventID": "\(item.eventID)", "url": "\(item.url)", "attempt": "\(attempts)", "error": "\(outcome)"])
        }
    }
}
