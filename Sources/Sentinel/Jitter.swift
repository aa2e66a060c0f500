import Foundation

/// Spreading of retry and refresh times, so many sentinels do not hit the server in step.
/// Pure: the random number is an input.
public enum Jitter {
    /// `base` moved by up to ±`fraction` of itself; `random` in [0, 1).
    public static func spread(_ base: Double, by fraction: Double, random: Double) -> Double {
        max(0, base * (1 + fraction * (2 * random - 1)))
    }
}

/// Exponential backoff with jitter: the wait doubles after each failure up to `maximum`, and
/// is drawn from the upper half of that bound so retries neither stampede nor collapse to zero.
public struct Backoff: Equatable, Sendable {
    public var initial: Double
    public var maximum: Double
    public var multiplier: Double

    public init(initial: Double = 1, maximum: Double = 300, multiplier: Double = 2) {
        self.initial = initial
        self.maximum = maximum
        self.multiplier = multiplier
    }

    /// The wait after `failures` consecutive failures (1 for the first); `random` in [0, 1).
    public func delay(afterFailures failures: Int, random: Double) -> Double {
        let exponent = Double(max(0, failures - 1))
        let bound = min(maximum, initial * pow(multiplier, min(exponent, 64)))
        return bound * (0.5 + 0.5 * random)
    }
}
