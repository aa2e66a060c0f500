import SQLKit

/// Counts password checks (log-in, deleting the account, changing the password) in `login_attempts`, shared by
/// every replica on the database, and refuses them by `LoginThrottle` before bcrypt runs.
///
/// An attempt is a row claimed before the check: it counts as a failure from the start, so requests sent in
/// parallel see each other, and only a success removes it (with that client's earlier failures on the email).
/// The claim is one transaction: SQLite has a single connection, so transactions run one at a time; on
/// PostgreSQL it takes advisory locks on the client and then the email, so two replicas cannot both take the
/// last attempt.
struct LoginGuard: Sendable {
    let database: Database
    let throttle: LoginThrottle

    /// A claimed attempt; `succeeded` when the password was right.
    struct Attempt: Sendable {
        let id: String
        let email: String
        let client: String
    }

    /// Claims an attempt for `email` from `client`, or throws 429 with the wait.
    func claim(email: String, client: String, now: Int64) async throws -> Attempt {
        let attempt = Attempt(id: Tokens.id(), email: email, client: client)
        let throttle = throttle
        let refusal: LoginThrottle.Refusal? = try await database.transaction { db in
            if db.dialect.name == "postgresql" {
                // Two-key form: its key space is apart from the single-key lock the migrations take.
                try await db.raw("SELECT pg_advisory_xact_lock(35, hashtext(\(bind: client)))").run()
                try await db.raw("SELECT pg_advisory_xact_lock(36, hashtext(\(bind: email)))").run()
            }
            let cutoff = now - throttle.windowMilliseconds
            // Every row past the window goes, unknown emails' too: nothing else reads them.
            try await db.raw("DELETE FROM login_attempts WHERE time_ms <= \(bind: cutoff)").run()
            func times(_ condition: SQLQueryString) async throws -> [Int64] {
                try await db.raw("SELECT time_ms FROM login_attempts WHERE \(condition) ORDER BY time_ms").all()
                    .map { try $0.decode(column: "time_ms", as: Int64.self) }
            }
            let recent = LoginThrottle.Recent(
                pair: try await times("email = \(bind: email) AND client = \(bind: client)"),
                email: try await db.raw("SELECT COUNT(*) AS n FROM login_attempts WHERE email = \(bind: email)")
                    .first()?.decode(column: "n", as: Int.self) ?? 0,
                client: try await times("client = \(bind: client)"))
            if let refusal = throttle.refusal(recent, now: now) { return refusal }
            try await db.raw("""
                INSERT INTO login_attempts (id, email, client, time_ms)
                VALUES (\(bind: attempt.id), \(bind: email), \(bind: client), \(bind: now))
                """).run()
            return nil
        }
        guard let refusal else { return attempt }
        let seconds = Int((refusal.milliseconds + 999) / 1000)
        switch refusal {
        case .email:
            throw APIError.rateLimited(retryAfter: seconds,
                                       "too many failed password attempts for this email from your network; try again in \(seconds) s")
        case .client:
            throw APIError.rateLimited(retryAfter: seconds, "too many log-in attempts from your network; try again in \(seconds) s")
        }
    }

    /// The password was right: this client's failures on the email are forgotten (other clients' stay, so the
    /// owner logging in does not give a guesser elsewhere a fresh allowance).
    func succeeded(_ attempt: Attempt) async throws {
        try await database.withSession { db in
            try await db.raw("DELETE FROM login_attempts WHERE email = \(bind: attempt.email) AND client = \(bind: attempt.client)").run()
        }
    }
}
