import SQLKit

/// Owners' sessions in the database: bearer tokens for the command line, cookies for the dashboard.
/// Only a token's SHA-256 digest is stored; `id` is the public handle for listing and revoking.
struct SessionStore: Sendable {
    let database: Database

    enum Kind: String, Sendable, Codable {
        /// `Authorization: Bearer` (the command line); ends when logged out or revoked.
        case token
        /// The dashboard's HttpOnly cookie; also ends by `SessionPolicy`.
        case cookie
    }

    struct Session: Sendable, Equatable {
        var id: String
        var accountID: String
        var kind: Kind
        var createdMilliseconds: Int64
        var lastUsedMilliseconds: Int64
        var userAgent: String?
    }

    /// User agents are for owners telling their devices apart; long ones are cut.
    static let userAgentLimit = 200

    func create(accountID: String, tokenDigest: String, kind: Kind, userAgent: String?, now: Int64) async throws -> Session {
        let session = Session(id: Tokens.id(), accountID: accountID, kind: kind, createdMilliseconds: now, lastUsedMilliseconds: now,
                              userAgent: userAgent.map { String($0.prefix(Self.userAgentLimit)) })
        try await database.withSession { db in
            try await db.raw("""
                INSERT INTO sessions (token_hash, id, account_id, kind, created_ms, last_used_ms, user_agent)
                VALUES (\(bind: tokenDigest), \(bind: session.id), \(bind: accountID), \(bind: kind.rawValue), \(bind: now),
                        \(bind: now), \(bind: session.userAgent))
                """).run()
        }
        return session
    }

    func find(tokenDigest: String) async throws -> Session? {
        try await database.withSession { db in
            try await db.raw("SELECT \(unsafeRaw: Self.columns) FROM sessions WHERE token_hash = \(bind: tokenDigest)").first().map(Self.decode)
        }
    }

    func list(accountID: String) async throws -> [Session] {
        try await database.withSession { db in
            try await db.raw("SELECT \(unsafeRaw: Self.columns) FROM sessions WHERE account_id = \(bind: accountID) ORDER BY created_ms, id")
                .all().map(Self.decode)
        }
    }

    func touch(id: String, now: Int64) async throws {
        try await database.withSession { db in
            try await db.raw("UPDATE sessions SET last_used_ms = \(bind: now) WHERE id = \(bind: id)").run()
        }
    }

    /// Until when the owner's session lives unless it is ended (which wakes its streams), or nil when it has
    /// ended: what an open event stream asks. A bearer token's has no end (`Int64.max`); a cookie's is its
    /// expiry by the policy, which a later use only moves on.
    func liveUntil(_ owner: OwnerSession, policy: SessionPolicy, now: Int64) async throws -> Int64? {
        try await database.withSession { db in
            guard let session = try await db.raw("""
                SELECT \(unsafeRaw: Self.columns) FROM sessions WHERE id = \(bind: owner.sessionID) AND account_id = \(bind: owner.accountID)
                """).first().map(Self.decode) else { return nil }
            let until = session.kind == .token ? Int64.max : policy.expiry(created: session.createdMilliseconds, lastUsed: session.lastUsedMilliseconds)
            return now < until ? until : nil
        }
    }

    /// Ends one of the account's sessions; false when it has none with that id.
    func delete(id: String, accountID: String) async throws -> Bool {
        let deleted = try await database.transaction { db in
            let found = try await db.raw("SELECT id FROM sessions WHERE id = \(bind: id) AND account_id = \(bind: accountID)").first()
            guard found != nil else { return false }
            try await db.raw("DELETE FROM sessions WHERE id = \(bind: id) AND account_id = \(bind: accountID)").run()
            try await Self.ended(accountID: accountID, in: db)
            return true
        }
        if deleted { await wakeStreams(of: accountID) }
        return deleted
    }

    /// Ends every session of the account but `keeping` (the one changing the password).
    static func deleteAll(accountID: String, keeping: String, in db: any SQLDatabase) async throws {
        try await db.raw("DELETE FROM sessions WHERE account_id = \(bind: accountID) AND id <> \(bind: keeping)").run()
        try await Self.ended(accountID: accountID, in: db)
    }

    /// Sessions of the account were deleted in `db`'s transaction: once it commits, every replica's open streams
    /// of the account look at their sessions (`EventRoutes`). On SQLite a no-op: call `wakeStreams` after the commit.
    static func ended(accountID: String, in db: any SQLDatabase) async throws {
        try await EventStore.notifyReplicas(account: accountID, in: db)
    }

    /// Wakes this process's open streams of the account, so those whose session ended close now.
    func wakeStreams(of accountID: String) async {
        await database.events.signal(.account(accountID))
    }

    static let columns = "id, account_id, kind, created_ms, last_used_ms, user_agent"

    static func decode(_ row: any SQLRow) throws -> Session {
        Session(id: try row.decode(column: "id", as: String.self),
                accountID: try row.decode(column: "account_id", as: String.self),
                kind: Kind(rawValue: try row.decode(column: "kind", as: String.self)) ?? .token,
                createdMilliseconds: try row.decode(column: "created_ms", as: Int64.self),
                lastUsedMilliseconds: try row.decode(column: "last_used_ms", as: Int64.self),
                userAgent: try row.decode(column: "user_agent", as: String?.self))
    }
}
