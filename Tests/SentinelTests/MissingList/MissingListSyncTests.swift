import Foundation
import Registry
import Synchronization
import Testing
@testable import Sentinel

@Suite struct MissingListSyncTests {
    func makeCache() throws -> MissingListCache {
        MissingListCache(path: try TestValues.temporaryDirectory().appendingPathComponent("missing.json").path)
    }

    @Test func fetchesAtStartAndSavesTheList() async throws {
        let server = FakeMissingList(bikes: [TestValues.bike(TestValues.intel)])
        let cache = try makeCache()
        let sync = MissingListSync(source: server, cache: cache)
        #expect(await sync.start(now: TestValues.t0))
        #expect(await sync.registry.contains(TestValues.intel))
        guard case let .loaded(saved) = cache.load(now: TestValues.t0) else { Issue.record("list not saved"); return }
        #expect(saved.version == 1)
        #expect(saved.bikes == [TestValues.bike(TestValues.intel)])
        #expect(saved.etag == "\"v1\"")
    }

    @Test func startsFromTheSavedListWhenTheServerIsDown() async throws {
        let server = FakeMissingList(bikes: [TestValues.bike(TestValues.intel)])
        let cache = try makeCache()
        _ = await MissingListSync(source: server, cache: cache).start(now: TestValues.t0)
        await server.setDown(true)
        let restarted = MissingListSync(source: server, cache: cache)
        #expect(await restarted.start(now: TestValues.t0 + 3600) == false)
        #expect(await restarted.registry.contains(TestValues.intel))
        #expect(await restarted.age(now: TestValues.t0 + 3600) == 3600)
    }

    @Test func notModifiedKeepsTheListAndSendsTheETag() async throws {
        let server = FakeMissingList(bikes: [TestValues.bike(TestValues.intel)])
        let sync = MissingListSync(source: server, cache: try makeCache())
        await sync.start(now: TestValues.t0)
        #expect(try await sync.refresh(now: TestValues.t0 + 300) == .unchanged)
        let last = try #require(await server.requests.last)
        #expect(last.since == 1)
        #expect(last.etag == "\"v1\"")
        #expect(await sync.registry.count == 1)
        #expect(await sync.age(now: TestValues.t0 + 300) == 0)
    }

    /// An SD card is not rewritten every refresh for a list that did not change; the saved age
    /// is still refreshed hourly, so a restart does not think the list older than an hour.
    @Test func anUnchangedListIsSavedAgainOnlyHourly() async throws {
        let server = FakeMissingList(bikes: [TestValues.bike(TestValues.intel)])
        let cache = try makeCache()
        let sync = MissingListSync(source: server, cache: cache)
        await sync.start(now: TestValues.t0)
        func savedAt() -> Double? {
            guard case let .loaded(saved) = cache.load(now: TestValues.t0) else { return nil }
            return saved.confirmedAt
        }
        for minutes in stride(from: 5.0, through: 55, by: 5) {
            #expect(try await sync.refresh(now: TestValues.t0 + minutes * 60) == .unchanged)
        }
        #expect(savedAt() == TestValues.t0)
        #expect(try await sync.refresh(now: TestValues.t0 + 3600) == .unchanged)
        #expect(savedAt() == TestValues.t0 + 3600)
    }

    @Test func appliesDeltas() async throws {
        let server = FakeMissingList(bikes: [TestValues.bike(TestValues.intel)])
        let cache = try makeCache()
        let sync = MissingListSync(source: server, cache: cache)
        await sync.start(now: TestValues.t0)
        await server.change(adding: [TestValues.bike(TestValues.blueCharm)], removing: [TestValues.intel])
        guard case let .applied(delta) = try await sync.refresh(now: TestValues.t0 + 300) else {
            Issue.record("expected a delta"); return
        }
        #expect(delta.since == 1 && delta.version == 2)
        let registry = await sync.registry
        #expect(registry.version == 2)
        #expect(registry.contains(TestValues.blueCharm))
        #expect(!registry.contains(TestValues.intel))
        guard case let .loaded(saved) = cache.load(now: TestValues.t0) else { Issue.record("list not saved"); return }
        #expect(saved.version == 2 && saved.bikes == [TestValues.bike(TestValues.blueCharm)])
    }

    @Test func aFullAnswerToADeltaRequestReplacesTheList() async throws {
        let server = FakeMissingList(bikes: [TestValues.bike(TestValues.intel)])
        let sync = MissingListSync(source: server, cache: try makeCache())
        await sync.start(now: TestValues.t0)
        await server.change(adding: [TestValues.bike(TestValues.other)])
        await server.change(removing: [TestValues.intel])
        await server.forgetHistory()
        #expect(try await sync.refresh(now: TestValues.t0 + 300) == .replaced(version: 3, count: 1))
        #expect(await sync.registry.bikes == [TestValues.bike(TestValues.other)])
    }

    /// Memory goes back to the kernel (`malloc_trim` in the sentinel) after a whole list was decoded, from the
    /// server or the saved file, and not after a 304 or a delta, which leave little behind.
    @Test func memoryIsReleasedAfterAWholeListOnly() async throws {
        final class Calls: Sendable {
            let count = Mutex(0)
            var value: Int { count.withLock { $0 } }
        }
        let calls = Calls()
        let server = FakeMissingList(bikes: [TestValues.bike(TestValues.intel)])
        let cache = try makeCache()
        let sync = MissingListSync(source: server, cache: cache, releaseMemory: { calls.count.withLock { $0 += 1 } })
        await sync.start(now: TestValues.t0)
        #expect(calls.value == 1, "the first whole list")
        #expect(try await sync.refresh(now: TestValues.t0 + 60) == .unchanged)
        await server.change(adding: [TestValues.bike(TestValues.other)])
        #expect(try await sync.refresh(now: TestValues.t0 + 120) == .applied(delta: MissingListDelta(
            since: 1, version: 2, added: [TestValues.bike(TestValues.other)], removed: [])))
        #expect(calls.value == 1, "neither a 304 nor a delta")
        await server.change(removing: [TestValues.intel])
        await server.forgetHistory()
        #expect(try await sync.refresh(now: TestValues.t0 + 180) == .replaced(version: 3, count: 1))
        #expect(calls.value == 2, "a whole list again")

        let restarted = Calls()
        await server.setDown(true)
        await MissingListSync(source: server, cache: cache, releaseMemory: { restarted.count.withLock { $0 += 1 } }).start(now: TestValues.t0 + 240)
        #expect(restarted.value == 1, "the saved list loaded, the server away")
    }

    @Test func aDeltaFromAnotherVersionFetchesTheWholeList() async throws {
        /// Answers a delta that does not start at the version held, then the full list.
        actor Skewed: MissingListSource {
            var calls = 0
            func fetch(since: Int64?, etag: String?) async throws -> MissingListAnswer {
                calls += 1
                if since == nil, calls == 1 { return .full(version: 5, bikes: [TestValues.bike(TestValues.intel)], etag: "\"a\"") }
                if since != nil {
                    return .delta(MissingListDelta(since: 4, version: 6, added: [], removed: [TestValues.intel]), etag: "\"b\"")
                }
                return .full(version: 6, bikes: [TestValues.bike(TestValues.blueCharm)], etag: "\"c\"")
            }
        }
        let sync = MissingListSync(source: Skewed(), cache: try makeCache())
        await sync.start(now: TestValues.t0)
        #expect(try await sync.refresh(now: TestValues.t0 + 1) == .replaced(version: 6, count: 1))
        #expect(await sync.registry.contains(TestValues.blueCharm))
    }

    @Test func aCorruptCacheIsSetAsideAndTheListRefetched() async throws {
        let dir = try TestValues.temporaryDirectory()
        let path = dir.appendingPathComponent("missing.json").path
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: path))
        let server = FakeMissingList(bikes: [TestValues.bike(TestValues.intel)])
        let sync = MissingListSync(source: server, cache: MissingListCache(path: path))
        #expect(await sync.start(now: TestValues.t0))
        #expect(await sync.registry.contains(TestValues.intel))
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        #expect(files == ["missing.json", "missing.json.corrupt-20251121T215320Z"])
        // The first request was for the whole list: nothing usable was held.
        #expect(await server.requests.first?.since == nil)
    }

    @Test func refreshesOnItsIntervalAndPicksUpChanges() async throws {
        let server = FakeMissingList(bikes: [TestValues.bike(TestValues.intel)])
        let sync = MissingListSync(source: server, cache: try makeCache())
        await sync.start(now: TestValues.t0)
        let sleeps = SleepRecorder()
        await server.change(removing: [TestValues.intel])
        await sleeps.stopAfter(2)
        await sync.run(interval: 300, jitter: 0.1, clock: { TestValues.t0 }, sleep: { try await sleeps.sleep($0) }, random: { 0.75 })
        #expect(await sleeps.waits == [315, 315])
        #expect(await sync.registry.isEmpty)
    }
}

/// An injected sleep that records its waits and cancels the loop after a number of them.
actor SleepRecorder {
    private(set) var waits: [Double] = []
    private var limit = Int.max
    private var onSleep: (@Sendable (Int) async -> Void)?

    func stopAfter(_ count: Int) { limit = count }
    func whenSleeping(_ action: @escaping @Sendable (Int) async -> Void) { onSleep = action }

    func sleep(_ seconds: Double) async throws {
        if waits.count >= limit { throw CancellationError() }
        waits.append(seconds)
        await onSleep?(waits.count)
    }
}
