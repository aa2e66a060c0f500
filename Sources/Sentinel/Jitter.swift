import Foundation

/// Spreading of refresh times, so many sentinels do not hit the server in step.
/// Pure: the random number is an input.
public enum Jitter {
    /// `base` moved by up to ±`fraction` of itself; `random` in [0, 1).
    public static func spread(_ base: Double, by fraction: Double, random: Double) -> Double {
        max(0, base * (1 + fraction * (2 * random - 1)))
    }
}

