/// Decides when to ask BlueZ to forget a device we do not care about (`Adapter1.RemoveDevice`).
///
/// BlueZ caches every device it hears and a busy street grows that cache without bound (bleak
/// issue 500). Removal is rate-limited so a crowd of phones cannot flood bluetoothd with calls, and
/// a path is not asked twice while a removal is in flight. Pure: time (seconds) is an input.
struct RemovalPolicy: Sendable {
    var maximumPerSecond = 10
    /// How long a request for one path is considered in flight.
    var retryAfter: Double = 30

    private var requested: [String: Double] = [:]
    private var windowStart = -Double.infinity
    private var windowCount = 0

    init(maximumPerSecond: Int = 10, retryAfter: Double = 30) {
        self.maximumPerSecond = maximumPerSecond
        self.retryAfter = retryAfter
    }

    /// Whether to send a removal for `path` now; records it when so.
    mutating func allow(_ path: String, now: Double) -> Bool {
        if let last = requested[path], now - last < retryAfter { return false }
        if now - windowStart >= 1 {
            windowStart = now
            windowCount = 0
        }
        guard windowCount < maximumPerSecond else { return false }
        windowCount += 1
        if requested.count >= 4096 {
            requested = requested.filter { now - $0.value < retryAfter }
        }
        requested[path] = now
        return true
    }

    /// BlueZ removed the device: a new sighting of the same path may be removed again at once.
    mutating func forget(_ path: String) {
        requested[path] = nil
    }

    mutating func forgetAll() {
        requested.removeAll()
    }
}
