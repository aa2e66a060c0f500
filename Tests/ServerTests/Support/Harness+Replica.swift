import HummingbirdTesting
@testable import Server

extension Harness {
    /// Runs `body` against two servers on this database, as replicas behind a load balancer: A with
    /// `setup`, B live with `optionsB` (A's options unless given). On PostgreSQL B gets its own
    /// connections, as another process would, so only NOTIFY and row locks can coordinate the two; on
    /// SQLite B shares A's `Database`, as servers in one process share its one connection to the file.
    /// B's connections are closed however `body` ends, before the test database is dropped (PostgreSQL
    /// refuses to drop a database with connections open), and `body`'s error is rethrown.
    func withReplica<R: Sendable>(_ setup: TestingSetup = .router, optionsB: ServerOptions? = nil,
                                  _ body: @Sendable (_ a: Client, _ b: Client, _ databaseB: Database) async throws -> R) async throws -> R {
        let ownConnections = database.flavor == .postgres
        let databaseB = ownConnections ? try Database(url: database.url, logger: Self.logger) : database
        let outcome: Result<R, any Error>
        do {
            let replicaA = try await BikebeaconServer.makeApplication(database: database, options: options, logger: Self.logger)
            let replicaB = try await BikebeaconServer.makeApplication(database: databaseB, options: optionsB ?? options, logger: Self.logger)
            outcome = .success(try await replicaA.test(setup) { a in
                try await replicaB.test(.live) { try await body(Client(inner: a), Client(inner: $0), databaseB) }
            })
        } catch {
            outcome = .failure(error)
        }
        if ownConnections { await databaseB.shutdown() }
        await cleanup()
        return try outcome.get()
    }
}
