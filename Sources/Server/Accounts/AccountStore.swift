import SQLKit

/// Accounts and webhook settings in the database (sessions: `SessionStore`, log-in attempts: `LoginGuard`).
struct AccountStore: Sendable {
    let database: Database

    struct Credentials: Sendable {
        var id: String
        var passwordHash: String
    }

    struct Webhook: Sendable, Equatable {
        var url: String
        var secret: String
    }

    /// Creates an account; nil when the email is taken.
    func create(email: String, passwordHash: String, now: Int64) async throws -> String? {
        let id = Tokens.id()
        return try await database.transaction { db in
            let taken = try await db.raw("SELECT id FROM accounts WHERE email = \(bind: email)").first()
            guard taken == nil else { return nil }
            try await db.raw("""
                INSERT INTO accounts (id, email, password_hash, created_ms)
                VALUES (\(bind: id), \(bind: email), \(bind: passwordHash), \(bind: now))
                """).run()
            return id
        }
    }

    func credentials(email: String) async throws -> Credentials? {
        try await database.withSession { db in
            guard let row = try await db.raw("SELECT id, password_hash FROM accounts WHERE email = \(bind: email)").first()
            else { return nil }
            return Credentials(id: try row.decode(column: "id", as: String.self),
                               passwordHash: try row.decode(column: "password_hash", as: String.self))
        }
    }

    func email(accountID: String) async throws -> String? {
        try await database.withSession { db in
            try await db.raw("SELECT email FROM accounts WHERE id = \(bind: accountID)")
                .first()?.decode(column: "email", as: String.self)
        }
    }

    func setWebhook(accountID: String, _ webhook: Webhook?) async throws {
        try await database.withSession { db in
            try await db.raw("""
                UPDATE accounts SET webhook_url = \(bind: webhook?.url), webhook_secret = \(bind: webhook?.secret)
                WHERE id = \(bind: accountID)
                """).run()
        }
    }

    static func webhook(accountID: String, in db: any SQLDatabase) async throws -> Webhook? {
        guard let row = try await db.raw("SELECT webhook_url, webhook_secret FROM accounts WHERE id = \(bind: accountID)").first(),
              let url = try row.decode(column: "webhook_url", as: String?.self),
              let secret = try row.decode(column: "webhook_secret", as: String?.self)
        else { return nil }
        return Webhook(url: url, secret: secret)
    }
}
