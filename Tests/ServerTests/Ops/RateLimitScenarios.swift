import Testing
@testable import Server

/// The rate limit's bucket lives in the database and is spent in one upsert (`RateLimiter.retryAfter`).
enum RateLimitScenarios {
    /// The stored bucket spends and refills exactly as the pure `TokenBucket` does: a burst, an empty bucket,
    /// partial and whole refills, a clock that steps back, and a bucket full again after a long pause.
    static func followsTheTokenBucket(_ backend: Backend) async throws {
        let harness = try await Harness.make(backend)
        let limit = RateLimit(perSecond: 0.5, burst: 3)
        let limiter = RateLimiter(database: harness.database, limit: limit)
        var model = TokenBucket(perSecond: limit.perSecond, burst: limit.burst, now: 0)
        let times: [Int64] = [0, 0, 0, 0, 0, 100, 1_999, 2_000, 2_001, 1_000, 4_500, 6_000, 6_000, 60_000, 60_000, 60_000, 60_000, 60_000]
        var refused = 0
        do {
            for time in times {
                let expected = model.take(now: time) ? nil : model.secondsUntilNextToken
                let answer = try await limiter.retryAfter("sentinel-a", now: time)
                #expect(answer == expected, "at \(time) ms")
                refused += answer == nil ? 0 : 1
            }
            // Another key has a bucket of its own.
            #expect(try await limiter.retryAfter("sentinel-b", now: 0) == nil)
        } catch {
            await harness.cleanup()
            throw error
        }
        await harness.cleanup()
        #expect(refused >= 5, "the sequence must reach an empty bucket to test anything: \(refused) refusals")
    }

    /// Many takes at once (as from replicas on one database) on a bucket of five: exactly five go ahead.
    static func concurrentTakesSpendEachTokenOnce(_ backend: Backend) async throws {
        let harness = try await Harness.make(backend)
        let limiter = RateLimiter(database: harness.database, limit: RateLimit(perSecond: 0.001, burst: 5))
        do {
            let granted = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<40 { group.addTask { try await limiter.retryAfter("sentinel", now: 1_000) == nil } }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(granted == 5)
        } catch {
            await harness.cleanup()
            throw error
        }
        await harness.cleanup()
    }
}
