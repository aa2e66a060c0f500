import Beacon
import BikebeaconAPI
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport
@testable import Server

/// The sentinels' poll answered from memory (`SentinelPollCache`, #36): whatever changes the list or a
/// sentinel elsewhere (another process on the same database, the CLI, another replica) reaches the poll
/// within the stated bound (`ServerOptions.sentinelPollMaxAge`, 1 s; these allow 2 s on a busy machine).
enum SentinelPollScenarios {
    static let bound: Duration = .seconds(2)

    /// Another process's connections (a second pool on the same file or PostgreSQL database) change the
    /// list, revoke one sentinel and give another a new token, while the server answers polls from memory.
    static func changesByAnotherProcess(_ backend: Backend) async throws {
        let harness = try await Harness.make(backend)
        let (_, garage) = try await harness.sentinel("garage")
        let (_, shed) = try await harness.sentinel("shed")
        try await harness.withOtherPools { pools in
            let other = pools[0]
            try await harness.run(keepDatabase: true) { client in
                let tag = try #require(try await client.send(.get, "/v1/missing", token: garage).headers[.eTag])
                #expect(try await client.send(.get, "/v1/missing", token: garage, headers: [.ifNoneMatch: tag]).status == .notModified)
                #expect(try await client.send(.get, "/v1/missing", token: shed, headers: [.ifNoneMatch: tag]).status == .notModified)

                // The list changes elsewhere (as any change does: a version bump in the change's transaction).
                _ = try await other.transaction { db in
                    try await MissingListStore(database: other, retention: 10)
                        .recordChange(of: [BeaconID(uuid: try #require(UUID(uuidString: Fixture.beaconA)), major: 1, minor: 2)], in: db)
                }
                let changed = try await within(bound) {
                    let poll = try await client.send(.get, "/v1/missing", token: garage, headers: [.ifNoneMatch: tag])
                    return poll.status == .ok && poll.headers[.eTag] != tag
                }
                #expect(changed, "a list changed by another process still got 304 after \(bound)")

                try await SentinelStore(database: other).revoke(name: "garage", now: harness.options.now())
                let refused = try await within(bound) {
                    try await client.send(.get, "/v1/missing", token: garage).status == .unauthorized
                }
                #expect(refused, "a sentinel revoked by another process was still served after \(bound)")
                expectError(try await client.send(.get, "/v1/missing", token: garage), .unauthorized, "revoked")

                let newToken = try await SentinelStore(database: other).rotate(name: "shed")
                let rotated = try await within(bound) {
                    try await client.send(.get, "/v1/missing", token: shed).status == .unauthorized
                }
                #expect(rotated, "the old token of a sentinel given a new one by another process still worked after \(bound)")
                #expect(try await client.send(.get, "/v1/missing", token: newToken).status == .ok)
            }
        }
    }

    /// `bikebeacon-server sentinels revoke`, run as the operator would, in its own process on the server's SQLite file.
    static func revokedByTheCommandLine() async throws {
        let harness = try await Harness.make(.sqlite)
        let (_, garage) = try await harness.sentinel("garage")
        guard case let .sqlite(path) = harness.database.url else { Issue.record("not SQLite"); return }
        try await harness.run { client in
            #expect(try await client.send(.get, "/v1/missing", token: garage).status == .ok)
            let revoke = try await run("bikebeacon-server", ["sentinels", "revoke", "garage", "--database", "sqlite://\(path)"])
            #expect(revoke.status == 0, "\(revoke.stderr)")
            let refused = try await within(bound) {
                try await client.send(.get, "/v1/missing", token: garage).status == .unauthorized
            }
            #expect(refused, "a sentinel revoked with the CLI was still served after \(bound)")
        }
    }

    /// Two replicas on one PostgreSQL, B with its own connections and a memory it would trust for an hour:
    /// only A's `NOTIFY` (migration 130's triggers) can tell B that a sentinel was revoked or the list changed.
    static func replicaHearsOfChanges(_ backend: Backend) async throws {
        let harness = try await Harness.make(backend)
        let (_, garage) = try await harness.sentinel("garage")
        let (_, shed) = try await harness.sentinel("shed")
        var optionsB = harness.options
        optionsB.sentinelPollMaxAge = .seconds(3600)
        try await harness.withReplica(optionsB: optionsB) { a, b, _ in
            let owner = try await a.owner("ann@example.org")
            let bike = try await a.bike(owner)
            let tag = try #require(try await b.send(.get, "/v1/missing", token: garage).headers[.eTag])
            #expect(try await b.send(.get, "/v1/missing", token: garage, headers: [.ifNoneMatch: tag]).status == .notModified)
            #expect(try await b.send(.get, "/v1/missing", token: shed, headers: [.ifNoneMatch: tag]).status == .notModified)

            #expect(try await a.send(.post, "/v1/bikes/\(bike.id)/missing", token: owner).status == .ok)
            let changed = try await within(bound) {
                let poll = try await b.send(.get, "/v1/missing", token: shed, headers: [.ifNoneMatch: tag])
                return poll.status == .ok && (try? b.decode(MissingList.self, poll).beacons.count) == 1
            }
            #expect(changed, "replica B still answered 304 \(bound) after A marked a bike missing")

            try await SentinelStore(database: harness.database).revoke(name: "garage", now: harness.options.now())
            let refused = try await within(bound) {
                try await b.send(.get, "/v1/missing", token: garage).status == .unauthorized
            }
            #expect(refused, "replica B still served a sentinel \(bound) after A revoked it")
        }
    }

    /// Whether `condition` holds within `limit`, polled every 20 ms.
    static func within(_ limit: Duration, _ condition: () async throws -> Bool) async throws -> Bool {
        let seconds = Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18
        return try await eventually(within: seconds, every: .milliseconds(20), condition)
    }
}
