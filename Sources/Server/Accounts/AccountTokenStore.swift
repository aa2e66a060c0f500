import SQLKit

/// Single-use tokens mailed to owners (password reset, email verification). Only their SHA-256
/// digest is stored, so a leaked database holds no working link; redeeming is one conditional
/// update, so two concurrent uses of one link cannot both succeed.
struct AccountTokenStore: Sendable {
    enum Purpose: String, Sendable {
        case passwordReset = "password_reset"
        case emailVerification = "email_verification"

        var lifetimeMilliseconds: Int64 {
            switch self {
            case .passwordReset: 30 * 60_000
            case .emailVerification: 7 * 24 * 3_600_000
            }
        }

        var prefix: String {
            switch self {
            case .passwordReset: "bbr_"
            case .emailVerification: "bbv_"
            }
        }
    }

    /// At most one mail per account and purpose per this long, so the endpoint cannot flood an inbox.
    static let resendInterval: Int64 = 60_000

    let database: Database

    /// A new token for the account, or nil when one was issued within `resendInterval`.
    func issue(accountID: String, purpose: Purpose, now: Int64) async throws -> String? {
        let token = Tokens.make(prefix: purpose.prefix)
        let issued = try await database.transaction { db in
            let recent = try await db.raw("""
                SELECT COUNT(*) AS n FROM account_tokens WHERE account_id = \(bind: accountID)
                  AND purpose = \(bind: purpose.rawValue) AND created_ms > \(bind: now - Self.resendInterval)
                """).first()?.decode(column: "n", as: Int.self) ?? 0
            guard recent == 0 else { return false }
            try await db.raw("DELETE FROM account_tokens WHERE account_id = \(bind: accountID) AND expires_ms < \(bind: now)").run()
            try await db.raw("""
                INSERT INTO account_tokens (token_hash, account_id, purpose, created_ms, expires_ms)
                VALUES (\(bind: Tokens.digest(token)), \(bind: accountID), \(bind: purpose.rawValue), \(bind: now),
                        \(bind: now + purpose.lifetimeMilliseconds))
                """).run()
            return true
        }
        return issued ? token : nil
    }

    /// Whether `redeem` would take the token now; a cheap look before work that only a valid token is worth.
    func isRedeemable(_ token: String, purpose: Purpose, now: Int64) async throws -> Bool {
        try await database.withSession { db in
            try await db.raw("""
                SELECT account_id FROM account_tokens
                WHERE token_hash = \(bind: Tokens.digest(token)) AND purpose = \(bind: purpose.rawValue)
                  AND used_ms IS NULL AND expires_ms > \(bind: now)
                """).first() != nil
        }
    }

    /// Uses the token up and returns its account, or nil when it is unknown, used, expired or for another purpose.
    /// `then` runs in the same transaction, so the token is spent only if what it authorises is done.
    func redeem(_ token: String, purpose: Purpose, now: Int64,
                then body: @escaping @Sendable (String, any SQLDatabase) async throws -> Void) async throws -> String? {
        try await database.transaction { db in
            guard let accountID = try await db.raw("""
                UPDATE account_tokens SET used_ms = \(bind: now)
                WHERE token_hash = \(bind: Tokens.digest(token)) AND purpose = \(bind: purpose.rawValue)
                  AND used_ms IS NULL AND expires_ms > \(bind: now)
                RETURNING account_id
                """).first()?.decode(column: "account_id", as: String.self)
            else { return nil }
            // One link in use spends the others of its kind.
            try await db.raw("""
                UPDATE account_tokens SET used_ms = \(bind: now)
                WHERE account_id = \(bind: accountID) AND purpose = \(bind: purpose.rawValue) AND used_ms IS NULL
                """).run()
            try await body(accountID, db)
            return accountID
        }
    }

    func isVerified(accountID: String) async throws -> Bool {
        try await database.withSession { db in
            try await db.raw("SELECT email_verified_ms FROM accounts WHERE id = \(bind: accountID)")
                .first()?.decode(column: "email_verified_ms", as: Int64?.self) != nil
        }
    }
}
