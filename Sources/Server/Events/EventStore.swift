import BikebeaconAPI
import Foundation
import SQLKit

/// A stored event with its position in the owner's stream.
struct StoredEvent: Sendable, Equatable {
    var id: Int64
    /// The SSE event name: `sighting` or `sentinel`.
    var kind: String
    var payload: String
}

/// Owners' events, kept in the database so streams can resume (`Last-Event-ID`) and webhook
/// deliveries survive a restart.
enum EventStore {
    /// Appends an event and, when the owner has a webhook, queues its delivery. Call inside the sighting's
    /// transaction; after it commits, signal `Database.events` (PostgreSQL replicas are notified by the commit).
    /// `bikeID`: the bike whose place it carries, so a report's seal stops it at once (`events`, `SightingSeal`).
    static func append(_ event: some Encodable & Sendable, kind: String = "sighting", account: String, bikeID: String? = nil, now: Int64,
                       in db: any SQLDatabase) async throws {
        let payload = String(decoding: try JSONResponse.encoder.encode(event), as: UTF8.self)
        guard let id = try await db.raw("""
            INSERT INTO events (account_id, kind, payload, created_ms, bike_id)
            VALUES (\(bind: account), \(bind: kind), \(bind: payload), \(bind: now), \(bind: bikeID))
            RETURNING id
            """).first()?.decode(column: "id", as: Int64.self)
        else { throw StorageError.corruptRow("events insert returned no id") }
        if let webhook = try await AccountStore.webhook(accountID: account, in: db) {
            try await db.raw("""
                INSERT INTO deliveries (event_id, url, secret, attempts, next_attempt_ms)
                VALUES (\(bind: id), \(bind: webhook.url), \(bind: webhook.secret), \(bind: 0), \(bind: now))
                """).run()
        }
        try await notifyReplicas(account: account, in: db)
    }

    /// On PostgreSQL, wakes every replica's streams of the account (`PostgresEventListener`), when the
    /// transaction commits, never before; on SQLite a no-op (the caller signals `Database.events`).
    static func notifyReplicas(account: String, in db: any SQLDatabase) async throws {
        if db.dialect.name == "postgresql" {
            try await db.raw("SELECT pg_notify(\(bind: PostgresEventListener.channel), \(bind: account))").run()
        }
    }

    /// The owner's events after `id`, oldest first; none that carries the place of a bike sealed now (#43: a stream
    /// open across a report stops at once, whatever it had still to send). The LIMIT is a literal, as in
    /// `SightingEstimates.estimates`: a bound one makes SQLite prepare the statement twice.
    static func events(account: String, after id: Int64, limit: Int, database: Database) async throws -> [StoredEvent] {
        try await database.withSession { db in
            try await db.raw("""
                SELECT id, kind, payload FROM events WHERE account_id = \(bind: account) AND id > \(bind: id)
                  AND (bike_id IS NULL OR NOT EXISTS (SELECT 1 FROM bikes b WHERE b.id = events.bike_id AND b.sealed_case IS NOT NULL))
                ORDER BY id LIMIT \(literal: limit)
                """).all().map { StoredEvent(id: try $0.decode(column: "id", as: Int64.self), kind: try $0.decode(column: "kind", as: String.self),
                                             payload: try $0.decode(column: "payload", as: String.self)) }
        }
    }

    static func latestID(account: String, database: Database) async throws -> Int64 {
        try await database.withSession { db in
            try await db.raw("SELECT MAX(id) AS id FROM events WHERE account_id = \(bind: account)")
                .first()?.decode(column: "id", as: Int64?.self) ?? 0
        }
    }
}
