import SQLKit

/// A token bucket: `burst` requests at once, refilled at `perSecond`. Pure; time is an input.
public struct TokenBucket: Sendable, Equatable {
    public var perSecond: Double
    public var burst: Double
    private(set) var tokens: Double
    private(set) var last: Int64

    public init(perSecond: Double, burst: Double, now: Int64) {
        self.perSecond = perSecond
        self.burst = burst
        tokens = burst
        last = now
    }

    init(perSecond: Double, burst: Double, tokens: Double, last: Int64) {
        self.perSecond = perSecond
        self.burst = burst
        self.tokens = tokens
        self.last = last
    }

    /// Whole seconds until the next token, at least 1.
    var secondsUntilNextToken: Int {
        let seconds = (1 - tokens) / max(perSecond, 1e-9)
        return Int(min(max(1, seconds.rounded(.up)), 86_400))
    }

    /// Takes one token if there is one.
    public mutating func take(now: Int64) -> Bool {
        let elapsed = Double(max(0, now - last)) / 1000
        tokens = min(burst, tokens + elapsed * perSecond)
        last = max(last, now)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}

public struct RateLimit: Sendable {
    public var perSecond: Double
    public var burst: Double

    public init(perSecond: Double, burst: Double) {
        self.perSecond = perSecond
        self.burst = burst
    }

    /// `count` at once, then one more every hour / `count`.
    public static func perHour(_ count: Double) -> RateLimit {
        RateLimit(perSecond: count / 3600, burst: count)
    }
}

/// One bucket per key (a sentinel's id, a client's address), kept in the database so every replica draws from the
/// same bucket: a sentinel cannot multiply its rate by the number of servers behind a balancer.
struct RateLimiter: Sendable {
    let database: Database
    let limit: RateLimit

    /// nil when the request may go ahead, else the whole seconds until it may (for `Retry-After`).
    ///
    /// One statement, `TokenBucket.take` in SQL: the upsert holds the row's write lock while it refills and
    /// spends, so two replicas cannot both spend the last token, and a sentinel's batch costs one round trip
    /// here, not five (a transaction of insert, read and update). `granted` says whether a token was taken.
    func retryAfter(_ key: String, now: Int64) async throws -> Int? {
        let fresh = limit.burst >= 1, refilled = refilled(now: now)
        let row = try await database.withSession { db in
            try await db.raw("""
                INSERT INTO rate_buckets (key, tokens, last_ms, granted)
                VALUES (\(bind: key), \(bind: fresh ? limit.burst - 1 : limit.burst), \(bind: now), \(bind: fresh ? 1 : 0))
                ON CONFLICT (key) DO UPDATE SET
                  tokens = CASE WHEN \(refilled) >= 1 THEN \(refilled) - 1 ELSE \(refilled) END,
                  granted = CASE WHEN \(refilled) >= 1 THEN 1 ELSE 0 END,
                  last_ms = CASE WHEN rate_buckets.last_ms > \(bind: now) THEN rate_buckets.last_ms ELSE \(bind: now) END
                RETURNING tokens, granted
                """).first()
        }
        guard let row else { return nil }
        guard try row.decode(column: "granted", as: Int64.self) == 0 else { return nil }
        let bucket = TokenBucket(perSecond: limit.perSecond, burst: limit.burst,
                                 tokens: try row.decode(column: "tokens", as: Double.self), last: now)
        return bucket.secondsUntilNextToken
    }

    /// The stored bucket's tokens refilled up to `now` (never past `burst`; a clock that went back refills
    /// nothing), in SQL that SQLite and PostgreSQL both read (no LEAST/GREATEST in SQLite).
    private func refilled(now: Int64) -> SQLQueryString {
        let elapsed: SQLQueryString = "(CASE WHEN \(bind: now) > rate_buckets.last_ms THEN \(bind: now) - rate_buckets.last_ms ELSE 0 END)"
        let topped: SQLQueryString = "(rate_buckets.tokens + \(elapsed) / 1000.0 * \(bind: limit.perSecond))"
        return "(CASE WHEN \(topped) > \(bind: limit.burst) THEN \(bind: limit.burst) ELSE \(topped) END)"
    }

    /// Whole seconds until `key`'s bucket has a token, without taking one; nil when it has one (no bucket is a full one).
    func wait(_ key: String, now: Int64) async throws -> Int? {
        try await database.withSession { db in
            guard let row = try await db.raw("SELECT tokens, last_ms FROM rate_buckets WHERE key = \(bind: key)").first() else { return nil }
            var bucket = TokenBucket(perSecond: limit.perSecond, burst: limit.burst,
                                     tokens: try row.decode(column: "tokens", as: Double.self),
                                     last: try row.decode(column: "last_ms", as: Int64.self))
            return bucket.take(now: now) ? nil : bucket.secondsUntilNextToken
        }
    }

    /// Deletes the buckets under `prefix` untouched long enough to be full again. A full bucket and none
    /// are the same, and keys from client addresses would otherwise keep a row for every address ever seen.
    func forgetRefilled(prefix: String, now: Int64) async throws {
        // Capped at a year, so that no limit turns the cut-off into an overflow.
        let refill = Int64(min((limit.burst / max(limit.perSecond, 1e-9) * 1000).rounded(.up), 365 * 86_400_000))
        try await database.withSession { db in
            // `prefix` holds no LIKE wildcard: it is one of this server's constants.
            try await db.raw("DELETE FROM rate_buckets WHERE key LIKE \(bind: prefix + "%") AND last_ms <= \(bind: now - refill)").run()
        }
    }
}
