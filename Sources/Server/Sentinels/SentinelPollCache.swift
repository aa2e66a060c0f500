import SQLKit
import Synchronization

/// What a sentinel's poll depends on, in one row each: the missing list's version (bumped with every
/// change to the list) and the sentinels' version (bumped by triggers on every change to `sentinels`,
/// migration 130, whichever process or replica makes it).
struct PollStamp: Equatable, Sendable {
    var missingVersion: Int64
    var sentinelsVersion: Int64
}

/// The bookkeeping of `SentinelPollCache`, without locks or I/O: when the stamp it holds is fresh enough
/// to answer from, and which sentinels it may keep.
struct PollCacheState: Sendable {
    private(set) var stamp: PollStamp?
    /// When the read behind `stamp` began.
    private(set) var checkedAt: ContinuousClock.Instant?
    /// `Database.changes` when that read began.
    private(set) var commits: UInt64 = 0
    /// Bumped whenever the sentinels are forgotten, so a lookup that read the database before cannot store a stale row.
    private(set) var generation: UInt64 = 0
    /// Sentinels by token digest, as the database had them at `generation` (revoked ones too: they get their 401 from here).
    private var sentinels: [String: Sentinel] = [:]

    /// The stamp, when it was read after everything this process committed before `commits` and began
    /// less than `maxAge` before `now`; nil when it must be read again.
    func fresh(now: ContinuousClock.Instant, commits: UInt64, maxAge: Duration) -> PollStamp? {
        guard let stamp, let checkedAt, self.commits >= commits, checkedAt.duration(to: now) < maxAge else { return nil }
        return stamp
    }

    /// A stamp read that began at `readAt` with `commits` committed; a change to the sentinels forgets them all.
    mutating func record(_ new: PollStamp, readAt: ContinuousClock.Instant, commits: UInt64) {
        if new.sentinelsVersion != stamp?.sentinelsVersion {
            sentinels = [:]
            generation &+= 1
        }
        stamp = new
        checkedAt = readAt
        self.commits = commits
    }

    func sentinel(tokenDigest: String) -> Sentinel? { sentinels[tokenDigest] }

    /// Keeps a sentinel read from the database, unless the sentinels changed since `readIn` was current.
    mutating func remember(_ sentinel: Sentinel, tokenDigest: String, readIn generation: UInt64) {
        guard generation == self.generation else { return }
        sentinels[tokenDigest] = sentinel
    }
}

/// The sentinel's poll without the database (#36): its token and the missing list's version from memory.
///
/// Each database read is a hop through the pool's event loop and a thread (SQLite) or a round trip, and the
/// 304 a sentinel gets once a minute was two of them. Here a request answers from memory while the stamp
/// was read less than `maxAge` ago and after this process's last commit or announced change (`Database.changes`);
/// otherwise it reads the stamp again (one tiny query, shared by the requests that arrive meanwhile). So a
/// change made in this process is seen by the next request; one made on another replica as soon as its
/// `NOTIFY` arrives (migration 130's triggers send it); and any other (the `sentinels` CLI in another process
/// on the same SQLite file, a lost notification) within `maxAge` (`ServerOptions.sentinelPollMaxAge`, 1 s), without a per-request read or a background task.
final class SentinelPollCache: Sendable {
    let database: Database
    let maxAge: Duration
    let now: @Sendable () -> ContinuousClock.Instant
    private let guarded = Mutex<Guarded>(Guarded())

    private struct Guarded {
        var state = PollCacheState()
        /// The stamp read under way, which requests that find the stamp stale wait for.
        var reading: Task<Void, any Error>?
    }

    init(database: Database, maxAge: Duration, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.database = database
        self.maxAge = maxAge
        self.now = now
    }

    /// The missing list's current version, as of at most `maxAge` ago (and after this process's last change).
    func missingVersion() async throws -> Int64 {
        try await current().stamp.missingVersion
    }

    /// The sentinel holding the token with this digest (revoked or not), or nil when nobody holds it.
    /// Unknown tokens are not remembered: each one is looked up, as before.
    func sentinel(tokenDigest: String) async throws -> Sentinel? {
        let generation = try await current().generation
        if let known = guarded.withLock({ $0.state.sentinel(tokenDigest: tokenDigest) }) { return known }
        guard let found = try await SentinelStore(database: database).find(tokenDigest: tokenDigest) else { return nil }
        guarded.withLock { $0.state.remember(found, tokenDigest: tokenDigest, readIn: generation) }
        return found
    }

    /// A stamp fresh for a request starting now, reading it when it is not (at most two reads: one under
    /// way may have begun before this request's time).
    private func current() async throws -> (stamp: PollStamp, generation: UInt64) {
        let start = now()
        let commits = database.changes
        while true {
            let next: Next = guarded.withLock { held in
                if let stamp = held.state.fresh(now: start, commits: commits, maxAge: maxAge) {
                    return .fresh(stamp, held.state.generation)
                }
                if let reading = held.reading { return .wait(reading) }
                let reading = Task { try await self.read() }
                held.reading = reading
                return .wait(reading)
            }
            switch next {
            case let .fresh(stamp, generation): return (stamp, generation)
            case let .wait(reading): try await reading.value
            }
        }
    }

    private enum Next {
        case fresh(PollStamp, UInt64)
        case wait(Task<Void, any Error>)
    }

    private func read() async throws {
        let readAt = now()
        let commits = database.changes
        do {
            let stamp = try await database.withSession { db in
                guard let row = try await db.raw("""
                    SELECT (SELECT version FROM missing_version WHERE id = 1) AS missing,
                           (SELECT version FROM sentinels_version WHERE id = 1) AS sentinels
                    """).first()
                else { throw StorageError.corruptRow("missing_version or sentinels_version has no row 1") }
                return PollStamp(missingVersion: try row.decode(column: "missing", as: Int64.self),
                                 sentinelsVersion: try row.decode(column: "sentinels", as: Int64.self))
            }
            guarded.withLock {
                $0.state.record(stamp, readAt: readAt, commits: commits)
                $0.reading = nil
            }
        } catch {
            guarded.withLock { $0.reading = nil }
            throw error
        }
    }
}
