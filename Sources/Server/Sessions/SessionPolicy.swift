/// How long a dashboard (cookie) session lives: it ends after `idle` without a request, and
/// `lifetime` after log-in whatever happens. Pure: times are inputs, epoch milliseconds.
///
/// Bearer sessions (the command line) are not bound by it: they end when revoked or logged out.
public struct SessionPolicy: Sendable, Equatable {
    public var idleMilliseconds: Int64
    public var lifetimeMilliseconds: Int64
    /// A session's last use is written at most this often, so reading pages does not write on every request.
    public var touchMilliseconds: Int64

    public init(idleMilliseconds: Int64 = 7 * 86_400_000, lifetimeMilliseconds: Int64 = 30 * 86_400_000,
                touchMilliseconds: Int64 = 60_000) {
        self.idleMilliseconds = idleMilliseconds
        self.lifetimeMilliseconds = lifetimeMilliseconds
        self.touchMilliseconds = touchMilliseconds
    }

    /// When a session created and last used at these times ends, unless it is used again before.
    public func expiry(created: Int64, lastUsed: Int64) -> Int64 {
        min(lastUsed + idleMilliseconds, created + lifetimeMilliseconds)
    }

    public func isLive(created: Int64, lastUsed: Int64, now: Int64) -> Bool {
        now < expiry(created: created, lastUsed: lastUsed)
    }

    public func needsTouch(lastUsed: Int64, now: Int64) -> Bool {
        now - lastUsed >= touchMilliseconds
    }
}
