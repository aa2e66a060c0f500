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
}

/// One bucket per key (a sentinel's id), per server process. Buckets idle long enough to be full are dropped.
actor RateLimiter {
    private let limit: RateLimit
    private var buckets: [String: TokenBucket] = [:]
    private var lastSweep: Int64 = 0

    init(limit: RateLimit) { self.limit = limit }

    func allow(_ key: String, now: Int64) -> Bool {
        if now - lastSweep > 60_000 { sweep(now: now) }
        var bucket = buckets[key] ?? TokenBucket(perSecond: limit.perSecond, burst: limit.burst, now: now)
        let allowed = bucket.take(now: now)
        buckets[key] = bucket
        return allowed
    }

    private func sweep(now: Int64) {
        let refill = Int64(limit.burst / max(limit.perSecond, 0.001) * 1000)
        buckets = buckets.filter { now - $0.value.last < refill }
        lastSweep = now
    }
}
