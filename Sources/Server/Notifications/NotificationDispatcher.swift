import BikebeaconAPI
import Foundation
import SQLKit

/// Turns owners' events into queued deliveries: through the no-spam window of each bike and
/// place (`NotificationPolicy`), then one queue row per channel the owner has switched on and
/// the server can send (one per push subscription). Runs inside the transaction that stored the
/// event, so an event and its notification are committed together.
struct NotificationDispatcher: Sendable {
    /// Per bike and place at most one notification per this many milliseconds (`serve --notify-interval`).
    let interval: Int64
    /// Channels with a registered sender; settings for other channels are kept but nothing is queued.
    let channels: Set<NotificationChannel>
    let flavor: Database.Flavor

    /// A window that has never sent: old enough that the first event always goes out.
    private static let never: Int64 = -(1 << 62)

    /// Offers one event; returns whether a notification was queued now (false: held back or no channel on).
    @discardableResult
    func offer(_ notification: OwnerNotification, now: Int64, in db: any SQLDatabase) async throws -> Bool {
        let place = notification.place ?? NotificationPolicy.noPlace
        // Create the window row first, so concurrent replicas then serialise on its row lock.
        try await db.raw("""
            INSERT INTO notification_windows (bike_id, place, last_sent_ms, pending)
            VALUES (\(bind: notification.bikeId), \(bind: place), \(bind: Self.never), NULL) ON CONFLICT DO NOTHING
            """).run()
        let lock = flavor == .postgres ? " FOR UPDATE" : ""
        guard let row = try await db.raw("""
            SELECT last_sent_ms, pending FROM notification_windows
            WHERE bike_id = \(bind: notification.bikeId) AND place = \(bind: place)\(unsafeRaw: lock)
            """).first()
        else { throw StorageError.corruptRow("notification window vanished inside its transaction") }
        let window = NotificationWindow(lastSentMilliseconds: try row.decode(column: "last_sent_ms", as: Int64.self),
                                        pending: try Self.pending(row))
        let decision = NotificationPolicy.offer(notification, window: window, now: now, interval: interval)
        try await db.raw("""
            UPDATE notification_windows SET last_sent_ms = \(bind: decision.window.lastSentMilliseconds),
              pending = \(bind: try decision.window.pending?.json())
            WHERE bike_id = \(bind: notification.bikeId) AND place = \(bind: place)
            """).run()
        guard let send = decision.send else { return false }
        return try await queue(send, now: now, in: db) > 0
    }

    /// Sends the summaries of windows that have ended with events held back. Safe with several
    /// replicas: a window is taken only if it is still as read (compare and swap).
    func flushDue(now: Int64, database: Database) async throws {
        let due = try await database.withSession { db in
            try await db.raw("""
                SELECT bike_id, place, last_sent_ms, pending FROM notification_windows
                WHERE pending IS NOT NULL AND last_sent_ms <= \(bind: now - interval) LIMIT 50
                """).all().map { row in
                (bike: try row.decode(column: "bike_id", as: String.self), place: try row.decode(column: "place", as: String.self),
                 lastSent: try row.decode(column: "last_sent_ms", as: Int64.self),
                 pending: try row.decode(column: "pending", as: String.self))
            }
        }
        for window in due {
            try await database.transaction { db in
                let taken = try await db.raw("""
                    UPDATE notification_windows SET last_sent_ms = \(bind: now), pending = NULL
                    WHERE bike_id = \(bind: window.bike) AND place = \(bind: window.place)
                      AND last_sent_ms = \(bind: window.lastSent) AND pending = \(bind: window.pending)
                    RETURNING bike_id
                    """).first()
                guard taken != nil else { return }
                let summary = try JSONDecoder().decode(OwnerNotification.self, from: Data(window.pending.utf8))
                try await queue(summary, now: now, in: db)
            }
        }
    }

    /// One queue row per allowed channel (per subscription for push), of `only` when given; returns how many.
    @discardableResult
    func queue(_ notification: OwnerNotification, only: Set<NotificationChannel>? = nil, now: Int64, in db: any SQLDatabase) async throws -> Int {
        let settings = try await Self.settings(accountID: notification.ownerId, in: db)
        let payload = try notification.json()
        var targets: [(NotificationChannel, String)] = []
        for channel in NotificationChannel.allCases where channels.contains(channel) && settings.allows(channel) && only?.contains(channel) != false {
            switch channel {
            case .push:
                let subscriptions = try await db.raw("""
                    SELECT id FROM push_subscriptions WHERE account_id = \(bind: notification.ownerId) ORDER BY created_ms
                    """).all().map { try $0.decode(column: "id", as: String.self) }
                targets += subscriptions.map { (.push, $0) }
            case .email:
                targets.append((.email, ""))
            }
        }
        for (channel, target) in targets {
            try await db.raw("""
                INSERT INTO notification_deliveries (account_id, channel, target, payload, attempts, next_attempt_ms, created_ms, bike_id)
                VALUES (\(bind: notification.ownerId), \(bind: channel.rawValue), \(bind: target), \(bind: payload),
                        \(bind: 0), \(bind: now), \(bind: now), \(bind: notification.carriesPlace ? notification.bikeId : nil))
                """).run()
        }
        return targets.count
    }

    static func settings(accountID: String, in db: any SQLDatabase) async throws -> NotificationSettings {
        guard let row = try await db.raw("SELECT push, email FROM notification_settings WHERE account_id = \(bind: accountID)").first()
        else { return NotificationSettings() }
        return NotificationSettings(push: try row.decode(column: "push", as: Int.self) != 0,
                                    email: try row.decode(column: "email", as: Int.self) != 0)
    }

    static func setSettings(_ settings: NotificationSettings, accountID: String, in db: any SQLDatabase) async throws {
        try await db.raw("""
            INSERT INTO notification_settings (account_id, push, email)
            VALUES (\(bind: accountID), \(bind: settings.push ? 1 : 0), \(bind: settings.email ? 1 : 0))
            ON CONFLICT (account_id) DO UPDATE SET push = excluded.push, email = excluded.email
            """).run()
    }

    private static func pending(_ row: any SQLRow) throws -> OwnerNotification? {
        guard let text = try row.decode(column: "pending", as: String?.self) else { return nil }
        return try JSONDecoder().decode(OwnerNotification.self, from: Data(text.utf8))
    }
}
