/// How many failed logins an email may have before further attempts wait: slows password
/// guessing without locking the owner out for long. Pure: the caller supplies the failures and the time.
public struct LoginThrottle: Sendable {
    public var maxFailures: Int
    public var windowMilliseconds: Int64

    public init(maxFailures: Int = 5, windowMilliseconds: Int64 = 5 * 60 * 1000) {
        self.maxFailures = maxFailures
        self.windowMilliseconds = windowMilliseconds
    }

    /// Milliseconds until another attempt is allowed, or nil if one is allowed now.
    /// `failures` are the times of failed attempts inside the window, oldest first.
    public func wait(failures: [Int64], now: Int64) -> Int64? {
        let recent = failures.filter { $0 > now - windowMilliseconds }
        guard recent.count >= maxFailures else { return nil }
        // The attempt that must age out of the window before the count drops below the limit.
        let blocking = recent[recent.count - maxFailures]
        return max(1, blocking + windowMilliseconds - now)
    }
}
