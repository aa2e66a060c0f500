import AsyncHTTPClient
import BikebeaconAPI
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import Server

/// Two server instances on one database, as replicas behind a load balancer: no state that
/// matters lives in one process, events stored by one reach streams on the other, and a session
/// ended on one closes its stream on the other.
enum ReplicaScenarios {
    static func sharedDatabase(_ backend: Backend) async throws {
        let harness = try await Harness.make(backend)
        let (_, sentinel) = try await harness.sentinel("cafe")
        // Replica B serves an owner's event stream; replica A takes everything else. On PostgreSQL B has
        // its own connections, as another process would: only A's NOTIFY can wake B's stream.
        try await harness.withReplica { a, b, _ in
            let port = try #require(b.port)
            let owner = try await a.owner("ann@example.org")
            let bike = try await a.bike(owner)
            // A session made on A works on B.
            #expect(try await b.send(.get, "/v1/bikes/\(bike.id)", token: owner).status == .ok)

            let before = try await b.send(.get, "/v1/missing", token: sentinel)
            let tag = try #require(before.headers[.eTag])
            _ = try await a.send(.post, "/v1/bikes/\(bike.id)/missing", token: owner)
            // B sees the version A bumped: at once on SQLite (one process), on PostgreSQL when A's NOTIFY
            // arrives (B answers polls from memory until then, `SentinelPollScenarios`).
            let seen = try await SentinelPollScenarios.within(SentinelPollScenarios.bound) {
                let after = try await b.send(.get, "/v1/missing", token: sentinel, headers: [.ifNoneMatch: tag])
                return after.status == .ok && after.headers[.eTag] != tag && (try? b.decode(MissingList.self, after).beacons.count) == 1
            }
            #expect(seen, "replica B did not serve the list A changed")

            let stream = await readEvents(port: port, token: owner, until: holdsASighting)
            let watchdog = Task {
                try await Task.sleep(for: .seconds(60))
                stream.cancel()
            }
            // The sighting arrives at A; B's stream is woken (in-process on SQLite, LISTEN/NOTIFY on PostgreSQL).
            #expect(try await a.send(.post, "/v1/sightings", token: sentinel,
                                     json: Fixture.Batch(sightings: [Fixture.sighting(event: "arrived")])).status == .ok)
            let text = try await stream.value
            watchdog.cancel()
            #expect(text.contains("event: sighting") && text.contains(bike.id))

            // A session revoked on A ends its open stream on B within a second.
            let phone = try a.decode(Token.self, try await a.send(.post, "/v1/sessions",
                                                                  json: ["email": "ann@example.org", "password": "correct horse battery"])).token
            let phoneID = try #require(try a.decode(SessionList.self, try await a.send(.get, "/v1/account/sessions", token: phone))
                .sessions.first { $0.current }?.id)
            let revoked = try await StreamEndScenarios.closing(port: port, token: phone) {
                let status = try await a.send(.delete, "/v1/account/sessions/\(phoneID)", token: owner).status
                #expect(status == .noContent)
            }
            #expect(revoked < StreamEndScenarios.closesPromptly, "the stream on B stayed open \(revoked) after its session was revoked on A")
        }
    }
}
