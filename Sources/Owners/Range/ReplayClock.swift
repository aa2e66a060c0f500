/// Maps between a capture's timestamps and time elapsed since a replay started, so a replay
/// plays at the capture's own pace, `speed` times faster.
public struct ReplayClock: Sendable, Equatable {
    /// The capture time at which the replay started (its first record).
    public var origin: Double
    public var speed: Double

    public init(origin: Double, speed: Double) {
        self.origin = origin
        self.speed = speed
    }

    /// The capture time shown after `elapsed` real seconds.
    public func captureTime(elapsed: Double) -> Double {
        origin + elapsed * speed
    }

    /// Real seconds from the start until capture time `time` is due (negative or zero: due now).
    public func elapsed(until time: Double) -> Double {
        (time - origin) / speed
    }
}
