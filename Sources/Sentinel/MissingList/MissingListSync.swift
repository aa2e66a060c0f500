#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import Registry

/// Keeps the missing list current: starts from the saved copy, refreshes from the server with
/// ETags and deltas, and saves every change atomically.
public actor MissingListSync {
    public enum Refresh: Equatable, Sendable {
        case unchanged
        case applied(delta: MissingListDelta)
        case replaced(version: Int64, count: Int)
    }

    private let source: any MissingListSource
    private let cache: MissingListCache
    private let logger: Logger
    private let releaseMemory: @Sendable () -> Void
    public private(set) var registry = MissingRegistry()
    private var etag: String?
    /// When the server last confirmed the list held; nil if it never has (nothing loaded).
    public private(set) var confirmedAt: Double?
    /// When the saved copy's `confirmedAt` was last written.
    private var savedConfirmationAt: Double?
    /// An unchanged list is saved again only this often (to keep its age after a restart honest
    /// to the hour): rewriting the whole list every refresh would wear an SD card.
    public static let unchangedSaveInterval: Double = 3600

    /// `releaseMemory` runs after a whole list was loaded or replaced and saved. Decoding a city's list leaves
    /// megabytes freed but still held by the allocator, in the middle of the heap where it cannot shrink on its
    /// own; the sentinel hands them back to the kernel there (`malloc_trim`), so a Pi Zero does not carry the
    /// decoding's peak for the rest of the day (#36).
    public init(source: any MissingListSource, cache: MissingListCache, logger: Logger = Logger(label: "bikebeacon.missing-list"),
                releaseMemory: @escaping @Sendable () -> Void = {}) {
        self.source = source
        self.cache = cache
        self.logger = logger
        self.releaseMemory = releaseMemory
    }

    /// Loads the saved list, then tries the server once. With the server away the saved list is
    /// used and its age logged; returns whether the server answered.
    @discardableResult
    public func start(now: Double) async -> Bool {
        loadSaved(now: now)
        return await confirm(now: now)
    }

    /// The saved list only, no network: a live sentinel scans with it at once while `confirm`
    /// asks the server.
    public func loadSaved(now: Double) {
        switch cache.load(now: now) {
        case .absent:
            logger.info("no saved missing list yet", metadata: ["path": "\(cache.path)"])
        case let .setAside(movedTo, reason):
            logger.error("the saved missing list was damaged; it was set aside and the list will be fetched again",
                         metadata: ["path": "\(cache.path)", "movedTo": "\(movedTo)", "reason": "\(reason)"])
        case let .loaded(snapshot):
            registry = MissingRegistry(version: snapshot.version, bikes: snapshot.bikes)
            etag = snapshot.etag
            confirmedAt = snapshot.confirmedAt
            savedConfirmationAt = snapshot.confirmedAt
            logger.info("loaded the saved missing list",
                        metadata: ["version": "\(snapshot.version)", "bikes": "\(snapshot.bikes.count)",
                                   "ageSeconds": "\(Int(now - snapshot.confirmedAt))"])
            releaseMemory()
        }
    }

    /// Tries the server once after `loadSaved`; logs what the sentinel goes on with if it is away.
    @discardableResult
    public func confirm(now: Double) async -> Bool {
        do {
            try await refresh(now: now)
            return true
        } catch {
            if let confirmedAt {
                logger.warning("server unreachable at start; using the saved missing list",
                               metadata: ["ageSeconds": "\(Int(now - confirmedAt))", "version": "\(registry.version)", "error": "\(error)"])
            } else {
                logger.error("server unreachable at start and no saved missing list: no bike can be matched until it answers",
                             metadata: ["error": "\(error)"])
            }
            return false
        }
    }

    /// Asks the server once and applies the answer. Throws when the server cannot be asked.
    @discardableResult
    public func refresh(now: Double) async throws -> Refresh {
        let held = confirmedAt == nil ? nil : registry.version
        let answer = try await source.fetch(since: held, etag: held == nil ? nil : etag)
        let outcome: Refresh
        switch answer {
        case .notModified:
            outcome = .unchanged
        case let .full(version, bikes, newTag):
            registry.replace(version: version, bikes: bikes)
            etag = newTag
            outcome = .replaced(version: version, count: registry.count)
        case let .delta(delta, newTag) where delta.since == registry.version && delta.version == registry.version
            && delta.added.isEmpty && delta.removed.isEmpty:
            // A server may answer a `since` poll with an empty delta rather than 304.
            etag = newTag ?? etag
            outcome = .unchanged
        case let .delta(delta, newTag):
            do {
                try registry.apply(delta)
                etag = newTag
                outcome = .applied(delta: delta)
            } catch {
                logger.notice("missing-list delta does not fit the list held; fetching the whole list", metadata: ["error": "\(error)"])
                guard case let .full(version, bikes, fullTag) = try await source.fetch(since: nil, etag: nil) else {
                    throw MissingListWireError.unexpectedShape("asked for the whole list, got something else")
                }
                registry.replace(version: version, bikes: bikes)
                etag = fullTag
                outcome = .replaced(version: version, count: registry.count)
            }
        }
        confirmedAt = now
        if outcome != .unchanged || now - (savedConfirmationAt ?? -.infinity) >= Self.unchangedSaveInterval {
            save(now: now)
        }
        if outcome != .unchanged {
            logger.info("missing list updated", metadata: ["version": "\(registry.version)", "bikes": "\(registry.count)"])
        }
        if case .replaced = outcome { releaseMemory() }
        return outcome
    }

    /// Refreshes every `interval` seconds, jittered, until cancelled; failures are logged and
    /// the list held stays in use.
    public func run(interval: Double, jitter: Double = 0.1, clock: @escaping @Sendable () -> Double,
                    sleep: @escaping @Sendable (Double) async throws -> Void,
                    random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) async {
        while !Task.isCancelled {
            do {
                try await sleep(Jitter.spread(interval, by: jitter, random: random()))
            } catch {
                return
            }
            do {
                try await refresh(now: clock())
            } catch {
                logger.warning("missing-list refresh failed; keeping the list held",
                               metadata: ["error": "\(error)", "version": "\(registry.version)",
                                          "ageSeconds": "\(confirmedAt.map { Int(clock() - $0) } ?? -1)"])
            }
        }
    }

    /// Seconds since the server last confirmed the list; nil before any list.
    public func age(now: Double) -> Double? { confirmedAt.map { now - $0 } }

    private func save(now: Double) {
        let snapshot = MissingListSnapshot(version: registry.version, etag: etag, confirmedAt: now, bikes: registry.bikes)
        do {
            try cache.save(snapshot)
            savedConfirmationAt = now
        } catch {
            logger.error("could not save the missing list; the list in memory stays in use", metadata: ["error": "\(error)"])
        }
    }
}
