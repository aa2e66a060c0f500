import BikebeaconAPI
import Durable
import Foundation
import Logging
import Mail
import SQLKit

/// One alert mail as queued: what happened to which sentinel, for whom.
struct SentinelAlert: Codable, Sendable, Equatable {
    var kind: String
    var sentinel: String
    var state: String
    var reason: String
    /// Since when the sentinel is in `state` (RFC 3339).
    var since: String
    /// `host`, `owner` or `operator`: why this address is told.
    var role: String
}

/// Who is told about sentinels, and after how long.
public struct SentinelAlertPolicy: Sendable, Equatable {
    /// A state must last this long before it is told (`serve --sentinel-alert-after`).
    public var holdOffMilliseconds: Int64 = 10 * 60_000
    /// Told about every sentinel (`serve --operator-email`).
    public var operatorEmails: [String] = []

    public init() {}
}

/// Alerts about sentinels: claimed once per change of state (a compare-and-swap on the health row's
/// `alerted`, in the transaction that queues the mails, so replicas on one database queue them once),
/// then mailed by the notification worker with the queue's lease and backoff: an SMTP outage delays
/// an alert, never loses or doubles it.
struct SentinelAlertStore: Sendable {
    let database: Database
    let policy: SentinelAlertPolicy
    let mail: MailOptions?
    /// A home sentinel's owner is also told by Web Push, through the owners' notification queue.
    let dispatcher: NotificationDispatcher
    let backoff: Backoff
    let logger: Logger
    let now: @Sendable () -> Int64

    /// Claims every alert due now and queues its mails; returns how many alerts were claimed.
    @discardableResult
    func claimDue() async throws -> Int {
        let time = now()
        let rows = try await database.withSession { db in
            try await db.raw("""
                SELECT h.sentinel_id, h.state, h.reason, h.state_ms, h.alerted, s.name, s.host_email, s.owner_id, a.email AS owner_email
                FROM sentinel_health h JOIN sentinels s ON s.id = h.sentinel_id LEFT JOIN accounts a ON a.id = s.owner_id
                WHERE h.state <> 'retired' AND h.state_ms <= \(bind: time - policy.holdOffMilliseconds)
                """).all()
        }
        var claimed = 0
        for row in rows {
            guard let state = SentinelState(rawValue: try row.decode(column: "state", as: String.self)) else { continue }
            let stored = try row.decode(column: "alerted", as: String?.self)
            let since = try row.decode(column: "state_ms", as: Int64.self)
            guard let kind = SentinelAlerts.due(state: state, since: since, alerted: stored.flatMap(SentinelAlerts.Kind.init(rawValue:)),
                                                now: time, holdOffMilliseconds: policy.holdOffMilliseconds)
            else { continue }
            let id = try row.decode(column: "sentinel_id", as: String.self)
            let name = try row.decode(column: "name", as: String.self)
            var candidates: [(String, String)] = []
            if let host = try row.decode(column: "host_email", as: String?.self) { candidates.append((host, "host")) }
            if let owner = try row.decode(column: "owner_email", as: String?.self) { candidates.append((owner, "owner")) }
            candidates += policy.operatorEmails.map { ($0, "operator") }
            var seen = Set<String>()
            let recipients = candidates.filter { seen.insert($0.0.lowercased()).inserted }
            let reason = try row.decode(column: "reason", as: String.self)
            let owner = try row.decode(column: "owner_id", as: String?.self)
            let mail = self.mail
            let dispatcher = self.dispatcher
            let won = try await database.transaction { db in
                let swapped = try await db.raw("""
                    UPDATE sentinel_health SET alerted = \(bind: kind.rawValue)
                    WHERE sentinel_id = \(bind: id) AND state = \(bind: state.rawValue) AND state_ms = \(bind: since)
                      AND COALESCE(alerted, '') = \(bind: stored ?? "") RETURNING sentinel_id
                    """).first() != nil
                guard swapped else { return false }
                if let owner {
                    let push = OwnerNotification(event: kind == .problem ? .sentinelDown : .sentinelUp, bikeId: "", bikeName: "",
                                                 ownerId: owner, place: name, latitude: nil, longitude: nil,
                                                 time: Timestamp.format(milliseconds: since), zone: nil,
                                                 reason: kind == .problem ? reason : nil)
                    try await dispatcher.queue(push, only: [.push], now: time, in: db)
                }
                guard mail != nil else { return true }
                for (address, role) in recipients {
                    let alert = SentinelAlert(kind: kind.rawValue, sentinel: name, state: state.rawValue, reason: reason,
                                              since: Timestamp.format(milliseconds: since), role: role)
                    let payload = String(decoding: try JSONResponse.encoder.encode(alert), as: UTF8.self)
                    try await db.raw("""
                        INSERT INTO sentinel_alerts (sentinel_id, address, payload, attempts, next_attempt_ms, created_ms)
                        VALUES (\(bind: id), \(bind: address), \(bind: payload), \(bind: 0), \(bind: time), \(bind: time))
                        """).run()
                }
                return true
            }
            guard won else { continue }
            claimed += 1
            if mail == nil {
                logger.warning("a sentinel alert is due but the server sends no email (no --smtp-url): nobody is told",
                               metadata: ["sentinel": "\(name)", "state": "\(state.rawValue)", "alert": "\(kind.rawValue)"])
            } else {
                logger.notice("sentinel alert queued", metadata: ["sentinel": "\(name)", "state": "\(state.rawValue)", "alert": "\(kind.rawValue)",
                                                                 "recipients": "\(recipients.count)"])
            }
        }
        if claimed > 0 { await database.events.signal(.deliveries) }
        return claimed
    }

    private struct Row: Sendable {
        var id: Int64
        var address: String
        var payload: String
        var attempts: Int
        var nextAttempt: Int64
    }

    /// Sends the alert mails that are due, each claimed by the delivery lease first.
    func deliverDue() async throws {
        guard let mail else { return }
        let time = now()
        let rows = try await database.withSession { db in
            try await db.raw("""
                SELECT id, address, payload, attempts, next_attempt_ms FROM sentinel_alerts
                WHERE delivered_ms IS NULL AND failed_ms IS NULL AND next_attempt_ms <= \(bind: time) ORDER BY next_attempt_ms LIMIT 50
                """).all().map { row in
                Row(id: try row.decode(column: "id", as: Int64.self), address: try row.decode(column: "address", as: String.self),
                    payload: try row.decode(column: "payload", as: String.self), attempts: try row.decode(column: "attempts", as: Int.self),
                    nextAttempt: try row.decode(column: "next_attempt_ms", as: Int64.self))
            }
        }
        let record = AddressedMailRecord(table: "sentinel_alerts", what: "sentinel alert email", database: database, backoff: backoff,
                                         logger: logger)
        for row in rows {
            await record.deliver(id: row.id, attempts: row.attempts, nextAttempt: row.nextAttempt, claimedAt: time, smtp: "\(mail.smtp)", now: now) {
                guard let alert = try? JSONDecoder().decode(SentinelAlert.self, from: Data(row.payload.utf8)) else {
                    throw AddressedMailRecord.Unreadable(reason: "the queued alert cannot be read back")
                }
                try await mail.client.send(SentinelAlertEmail.message(alert, to: row.address, options: mail, deliveryID: row.id, now: now()))
                logger.info("sentinel alert email sent", metadata: ["alert": "\(row.id)", "sentinel": "\(alert.sentinel)"])
            }
        }
    }
}
