/// When an open event stream looks at its session again. Pure: the caller gives the time.
///
/// Ending a session wakes its account's streams (on every replica, through `NOTIFY` on PostgreSQL), so a
/// stream need not read the session at each keep-alive: only when woken, when the expiry it last read
/// comes (a cookie session's; a later use only moves it on), and every `recheck` as a safety net.
struct SessionCheck: Sendable, Equatable {
    /// The longest a stream goes without reading its session.
    static let recheck: Int64 = 5 * 60_000

    /// Until when the session was last found live; nil before the first check.
    private(set) var liveUntil: Int64?
    private(set) var checkedAt: Int64 = 0

    func isDue(woken: Bool, now: Int64) -> Bool {
        guard let liveUntil else { return true }
        return woken || now >= liveUntil || now - checkedAt >= Self.recheck
    }

    mutating func checked(liveUntil: Int64, now: Int64) {
        self.liveUntil = liveUntil
        checkedAt = now
    }
}
