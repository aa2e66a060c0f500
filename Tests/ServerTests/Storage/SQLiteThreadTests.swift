import Dispatch
import NIOCore
import NIOPosix
import SQLKit
import Testing

@testable import Server

/// The SQLite connection's queries run on a thread of their own. On NIO's shared blocking pool they queued behind
/// whatever else ran there: password hashes, DNS lookups, file reads and, in the parallel suite, every other test's
/// database. A fresh clone's CI run lost a request of `NetworkScenarios.operatorsStream` to HummingbirdTesting's 20 s
/// timeout so.
struct SQLiteThreadTests {
    @Test func aQueryDoesNotWaitForTheSharedBlockingPool() async throws {
        let harness = try await Harness.make(.sqlite)
        let threads = NIOSingletons.blockingPoolThreadCountSuggestion
        let release = DispatchSemaphore(value: 0)
        let (started, starting) = AsyncStream.makeStream(of: Void.self)
        // Every thread of the shared pool held, as by as many password hashes at once.
        let holders = (0..<threads).map { _ in
            Task {
                try await NIOThreadPool.singleton.runIfActive {
                    starting.yield()
                    release.wait()
                }
            }
        }
        var held = 0
        for await _ in started {
            held += 1
            if held == threads { break }
        }
        let answered = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                (try? await harness.database.withSession { try await $0.raw("SELECT COUNT(*) AS n FROM accounts").first() }) != nil
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(10))
                return false
            }
            let first = await group.next() ?? false
            for _ in 0..<threads { release.signal() }
            group.cancelAll()
            return first
        }
        for holder in holders { try await holder.value }
        #expect(answered, "a query waited for a thread of NIO's shared blocking pool")
        await harness.cleanup()
    }
}
