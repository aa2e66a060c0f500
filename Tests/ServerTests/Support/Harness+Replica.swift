import HummingbirdTesting
@testable import Server

extension Harness {
    /// Runs `body` against two servers on this database, as replicas behind a load balancer: A with
    /// `setup`, B live with `optionsB` (A's options unless given), B on `withOtherPools`' pool: its own
    /// connections on PostgreSQL, so only NOTIFY and row locks can coordinate the two; A's `Database` on SQLite.
    func withReplica<R: Sendable>(_ setup: TestingSetup = .router, optionsB: ServerOptions? = nil,
                                  _ body: @Sendable (_ a: Client, _ b: Client, _ databaseB: Database) async throws -> R) async throws -> R {
        try await withOtherPools(onSQLite: false) { pools in
            let databaseB = pools[0]
            let replicaA = try await BikebeaconServer.makeApplication(database: database, options: options, logger: Self.logger)
            let replicaB = try await BikebeaconServer.makeApplication(database: databaseB, options: optionsB ?? options, logger: Self.logger)
            return try await replicaA.test(setup) { a in
                try await replicaB.test(.live) { try await body(Client(inner: a), Client(inner: $0), databaseB) }
            }
        }
    }

    /// Runs `body` with `count` more connection pools on this database, as other server processes would have them.
    /// With `onSQLite` false, on SQLite this harness's `database` stands in for each: servers in one process share its
    /// one connection to the file. The pools are closed however `body` ends, and only then is the harness cleaned up
    /// (PostgreSQL refuses to drop a database with connections open); `body`'s error is rethrown. So a `run` inside
    /// `body` keeps the database.
    func withOtherPools<R: Sendable>(_ count: Int = 1, onSQLite: Bool = true, maxConnections: Int = 8,
                                     _ body: ([Database]) async throws -> R) async throws -> R {
        let own = onSQLite || database.flavor == .postgres
        let outcome: Result<R, any Error>
        var pools: [Database] = []
        do {
            for _ in 0..<count { pools.append(own ? try Database(url: database.url, logger: Self.logger, maxConnections: maxConnections) : database) }
            outcome = .success(try await body(pools))
        } catch {
            outcome = .failure(error)
        }
        if own { for pool in pools { await pool.shutdown() } }
        await cleanup()
        return try outcome.get()
    }
}
