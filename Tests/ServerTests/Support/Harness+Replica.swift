import HummingbirdTesting
@testable import Server

extension Harness {
    /// Runs `body` against two servers on this database, as replicas behind a load balancer: A as `run`
    /// starts it, B live with `optionsB` (A's options unless given). On PostgreSQL B gets its own
    /// connections, as another process would, so only NOTIFY and row locks can coordinate the two; on
    /// SQLite B shares A's `Database`, as servers in one process share its one connection to the file.
    /// B's connections are closed however `body` ends, and its error is rethrown.
    func withReplica<R: Sendable>(_ setup: TestingSetup = .router, optionsB: ServerOptions? = nil,
                                  _ body: @Sendable (_ a: Client, _ b: Client, _ databaseB: Database) async throws -> R) async throws -> R {
        let ownConnections = database.flavor == .postgres
        let databaseB = ownConnections ? try Database(url: database.url, logger: Self.logger) : database
        do {
            let replicaB = try await BikebeaconServer.makeApplication(database: databaseB, options: optionsB ?? options, logger: Self.logger)
            let result = try await run(setup) { a in
                try await replicaB.test(.live) { try await body(a, Client(inner: $0), databaseB) }
            }
            if ownConnections { await databaseB.shutdown() }
            return result
        } catch {
            if ownConnections { await databaseB.shutdown() }
            throw error
        }
    }
}
