import AsyncKit
import Logging
import NIOCore
import NIOPosix
import PostgresKit
import SQLKit
import SQLiteKit
import Synchronization

/// One query layer (sql-kit) over either SQLite or PostgreSQL, with sessions and transactions.
///
/// SQLite gets exactly one connection: writers to one file serialise anyway, and a single
/// connection makes `BEGIN … COMMIT` safe without busy retries. That connection gets a thread of its
/// own: on NIO's shared blocking pool (as many threads as cores) every query queued behind password
/// hashes, DNS lookups and file reads, so a few logins at once held every request up. PostgreSQL
/// gets a pool, and several server processes may share it.
public final class Database: Sendable {
    public enum Flavor: String, Sendable { case sqlite, postgres }

    public let flavor: Flavor
    public let url: DatabaseURL
    /// Wakes event streams and delivery workers when events are stored in this database.
    public let events = EventSignal()
    /// Counts the transactions this process committed and the changes other replicas announced
    /// (`noteChange`): a cache of what the database says (`SentinelPollCache`) reads again when this
    /// moved, so a change made here is seen by the very next request.
    public var changes: UInt64 { changeCount.load(ordering: .sequentiallyConsistent) }
    private let changeCount = Atomic<UInt64>(0)

    /// Another process announced a change (on PostgreSQL, `PostgresEventListener` heard its `NOTIFY`).
    public func noteChange() { changeCount.add(1, ordering: .sequentiallyConsistent) }
    private let pools: Pools
    private let logger: Logger

    public init(url: DatabaseURL, logger: Logger, maxConnections: Int = 8) throws {
        self.url = url
        self.logger = logger
        switch url {
        case let .sqlite(path):
            flavor = .sqlite
            let thread = NIOThreadPool(numberOfThreads: 1)
            thread.start()
            let source = SQLiteConnectionSource(configuration: .init(storage: .file(path: path), enableForeignKeys: true),
                                                threadPool: thread)
            pools = .sqlite(Box(EventLoopConnectionPool(
                source: source, maxConnections: 1, requestTimeout: .seconds(30), pruneInterval: nil, logger: logger,
                on: MultiThreadedEventLoopGroup.singleton.next())), thread)
        case let .postgres(text):
            flavor = .postgres
            let configuration = try SQLPostgresConfiguration(url: text)
            let source = PostgresConnectionSource(sqlConfiguration: configuration)
            pools = .postgres(Box(EventLoopGroupConnectionPool(
                source: source, maxConnectionsPerEventLoop: max(1, maxConnections / System.coreCount),
                requestTimeout: .seconds(30), pruneInterval: nil, logger: logger, on: MultiThreadedEventLoopGroup.singleton)))
        }
    }

    /// Opens the database at `url` for one action and always shuts it down, even when the action fails.
    /// With `migrateAt` the schema is brought up to date first; a backup copies as it is, so it passes nil.
    public static func using<R: Sendable>(_ url: DatabaseURL, logger: Logger, maxConnections: Int = 8, migrateAt now: Int64?,
                                          _ body: (Database) async throws -> R) async throws -> R {
        let database = try Database(url: url, logger: logger, maxConnections: maxConnections)
        do {
            if let now { try await Migrations.run(on: database, now: now) }
            let result = try await body(database)
            await database.shutdown()
            return result
        } catch {
            await database.shutdown()
            throw error
        }
    }

    /// Runs `body` on one connection held for its whole duration.
    public func withSession<R: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        switch pools {
        case let .sqlite(box, _):
            let connection = try await box.pool.requestConnection(logger: logger).get()
            defer { box.pool.releaseConnection(connection, logger: logger) }
            return try await body(connection.sql())
        case let .postgres(box):
            let connection = try await box.pool.requestConnection(logger: logger).get()
            defer { box.pool.releaseConnection(connection, logger: logger) }
            return try await body(connection.sql())
        }
    }

    /// Runs `body` inside one transaction: everything it writes is committed together or not at all.
    /// On SQLite it takes the write lock as it begins (`IMMEDIATE`): another process on the file (an
    /// admin command beside the server) then waits its turn under the busy timeout, where a transaction
    /// that read first and wrote later would fail ("database is locked", SQLITE_BUSY_SNAPSHOT) had the
    /// other committed in between.
    public func transaction<R: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        try await withSession { db in
            try await db.raw(flavor == .sqlite ? "BEGIN IMMEDIATE" : "BEGIN").run()
            do {
                let result = try await body(db)
                try await db.raw("COMMIT").run()
                noteChange()
                return result
            } catch {
                try? await db.raw("ROLLBACK").run()
                throw error
            }
        }
    }

    public func shutdown() async {
        guard !isShutDown.exchange(true, ordering: .sequentiallyConsistent) else { return }
        switch pools {
        case let .sqlite(box, thread):
            try? await box.pool.close().get()
            try? await thread.shutdownGracefully()
        case let .postgres(box): try? await box.pool.shutdownAsync()
        }
    }

    /// A database let go without `shutdown()` (a command or a test that threw between opening it and
    /// its last step) closes its pools on their own event loops, which hold them until closed: async-kit
    /// stops the process (in a debug build) when a pool goes unclosed, and one test's early error
    /// then took the whole suite down with it.
    deinit {
        guard !isShutDown.load(ordering: .sequentiallyConsistent) else { return }
        switch pools {
        case let .sqlite(box, thread): box.pool.close().whenComplete { _ in thread.shutdownGracefully { _ in } }
        case let .postgres(box): box.pool.shutdownGracefully { _ in }
        }
    }

    private let isShutDown = Atomic<Bool>(false)

    private enum Pools: Sendable {
        /// The pool of one connection, and the thread its queries run on (shut down after the pool).
        case sqlite(Box<EventLoopConnectionPool<SQLiteConnectionSource>>, NIOThreadPool)
        case postgres(Box<EventLoopGroupConnectionPool<PostgresConnectionSource>>)
    }

    /// async-kit's pools are thread-safe (every call hops to the pool's event loop) but not marked Sendable.
    private final class Box<Pool>: @unchecked Sendable {
        let pool: Pool
        init(_ pool: Pool) { self.pool = pool }
    }
}

/// The database held something the server cannot read back; a bug or a manual edit, never client input.
public enum StorageError: Error, CustomStringConvertible {
    case corruptRow(String)

    public var description: String {
        switch self {
        case let .corruptRow(what): "the database holds a row the server cannot read: \(what)"
        }
    }
}
