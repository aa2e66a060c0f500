import Foundation

/// Exponential backoff for every delivery retried against a peer that may be down: the sentinel's
/// outbox, its MQTT link, and the server's webhook and notification queues. One rule, so they
/// cannot drift apart. Pure: the random number is an input.
public struct Backoff: Sendable, Equatable {
    /// The wait after the first failure, in seconds.
    public var initial: Double
    /// The longest wait, in seconds.
    public var maximum: Double
    public var multiplier: Double
    /// Failures after which a delivery is given up; nil retries for ever (a sentinel never drops a sighting).
    public var maxAttempts: Int?
    /// The random share of each wait: it is drawn from [bound × (1 − jitter), bound], so many senders
    /// retrying at once neither stampede nor collapse to zero.
    public var jitter: Double

    public init(initial: Double = 1, maximum: Double = 300, multiplier: Double = 2, maxAttempts: Int? = nil, jitter: Double = 0.5) {
        self.initial = initial
        self.maximum = maximum
        self.multiplier = multiplier
        self.maxAttempts = maxAttempts
        self.jitter = min(max(jitter, 0), 1)
    }

    /// The wait in seconds after `failures` consecutive failures (1 for the first), or nil when that many
    /// failures mean giving up; `random` in [0, 1).
    public func delay(afterFailures failures: Int, random: Double) -> Double? {
        if let maxAttempts, failures >= maxAttempts { return nil }
        let exponent = Double(min(max(0, failures - 1), 64))
        let bound = min(maximum, initial * pow(multiplier, exponent))
        return bound * (1 - jitter + jitter * random)
    }
}
