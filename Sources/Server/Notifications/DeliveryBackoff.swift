import Durable

extension Backoff {
    /// The server's webhook and notification queues: doubling from 2 s to an hour, given up after 12 attempts.
    public static let deliveries = Backoff(initial: 2, maximum: 3_600, maxAttempts: 12, jitter: 0)

    /// The wait in the queues' milliseconds after `failures` failed attempts, nil when giving up.
    func delayMilliseconds(afterFailures failures: Int) -> Int64? {
        delay(afterFailures: failures, random: Double.random(in: 0..<1)).map { Int64(($0 * 1_000).rounded()) }
    }
}
