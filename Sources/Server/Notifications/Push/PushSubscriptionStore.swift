import BikebeaconAPI
import Crypto
import Foundation
import SQLKit

/// A browser's push subscription as stored: where to POST and the keys to encrypt for it.
struct StoredPushSubscription: Sendable, Equatable {
    var id: String
    var accountID: String
    var endpoint: String
    var p256dh: String
    var auth: String
    var createdMilliseconds: Int64
}

/// Owners' push subscriptions in the database.
struct PushSubscriptionStore: Sendable {
    let database: Database

    /// A browser profile per device: 20 leaves room for every device an owner has.
    static let limit = 20

    enum SaveError: Error { case tooMany }

    /// Saves a subscription; the same endpoint again (a browser re-subscribing) keeps its id and takes the new keys.
    func save(accountID: String, endpoint: String, p256dh: String, auth: String, now: Int64) async throws -> String {
        try await database.transaction { db in
            if let existing = try await db.raw("""
                SELECT id FROM push_subscriptions WHERE account_id = \(bind: accountID) AND endpoint = \(bind: endpoint)
                """).first()?.decode(column: "id", as: String.self) {
                try await db.raw("""
                    UPDATE push_subscriptions SET p256dh = \(bind: p256dh), auth = \(bind: auth) WHERE id = \(bind: existing)
                    """).run()
                return existing
            }
            let count = try await db.raw("SELECT COUNT(*) AS n FROM push_subscriptions WHERE account_id = \(bind: accountID)")
                .first()?.decode(column: "n", as: Int.self) ?? 0
            guard count < Self.limit else { throw SaveError.tooMany }
            let id = Tokens.id()
            try await db.raw("""
                INSERT INTO push_subscriptions (id, account_id, endpoint, p256dh, auth, created_ms)
                VALUES (\(bind: id), \(bind: accountID), \(bind: endpoint), \(bind: p256dh), \(bind: auth), \(bind: now))
                """).run()
            return id
        }
    }

    func list(accountID: String) async throws -> [StoredPushSubscription] {
        try await database.withSession { db in
            try await db.raw("SELECT * FROM push_subscriptions WHERE account_id = \(bind: accountID) ORDER BY created_ms, id")
                .all().map(Self.subscription)
        }
    }

    func find(id: String) async throws -> StoredPushSubscription? {
        try await database.withSession { db in
            try await db.raw("SELECT * FROM push_subscriptions WHERE id = \(bind: id)").first().map(Self.subscription)
        }
    }

    /// Deletes one subscription; with `accountID`, only if it is that owner's. Returns whether one was deleted.
    @discardableResult
    func delete(id: String, accountID: String? = nil) async throws -> Bool {
        try await database.withSession { db in
            let deleted: (any SQLRow)?
            if let accountID {
                deleted = try await db.raw("""
                    DELETE FROM push_subscriptions WHERE id = \(bind: id) AND account_id = \(bind: accountID) RETURNING id
                    """).first()
            } else {
                deleted = try await db.raw("DELETE FROM push_subscriptions WHERE id = \(bind: id) RETURNING id").first()
            }
            return deleted != nil
        }
    }

    static func subscription(_ row: any SQLRow) throws -> StoredPushSubscription {
        StoredPushSubscription(
            id: try row.decode(column: "id", as: String.self), accountID: try row.decode(column: "account_id", as: String.self),
            endpoint: try row.decode(column: "endpoint", as: String.self), p256dh: try row.decode(column: "p256dh", as: String.self),
            auth: try row.decode(column: "auth", as: String.self), createdMilliseconds: try row.decode(column: "created_ms", as: Int64.self))
    }

    /// The server's VAPID signing key: created by the first server to start, then shared by every replica.
    static func vapidKey(database: Database, now: Int64) async throws -> P256.Signing.PrivateKey {
        let candidate = Base64URL.encode(P256.Signing.PrivateKey().rawRepresentation)
        let raw = try await database.withSession { db in
            try await db.raw("""
                INSERT INTO vapid_keys (id, private_key, created_ms)
                VALUES (\(bind: 1), \(bind: candidate), \(bind: now)) ON CONFLICT DO NOTHING
                """).run()
            guard let text = try await db.raw("SELECT private_key FROM vapid_keys WHERE id = \(bind: 1)").first()?
                .decode(column: "private_key", as: String.self), let raw = Base64URL.decode(text)
            else { throw StorageError.corruptRow("vapid_keys holds no readable key") }
            return raw
        }
        guard let key = try? P256.Signing.PrivateKey(rawRepresentation: raw) else {
            throw StorageError.corruptRow("vapid_keys holds no readable P-256 key")
        }
        return key
    }
}
