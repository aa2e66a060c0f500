import BikebeaconAPI
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import TestSupport
@testable import Server

/// `serve --trusted-proxy` (#43): `X-Forwarded-For` is believed only from a named proxy. A TCP forwarder on the same
/// host connects from loopback too; with no proxy named (the default) its clients cannot choose their own address
/// for the log-in, sign-up and "Found a tag?" limits, nor for the read log.
enum TrustedProxyScenarios {
    static func forgedHeaderFromAnUnnamedPeer(_ backend: Backend) async throws {
        let clock = PushScenarios.Clock(start: Fixture.afterSightings)
        let harness = try await Harness.make(backend, options: Harness.testOptions {
            $0.trustedProxies = .none
            $0.now = clock.read
            $0.signupLimit = RateLimit(perSecond: 1.0 / 3600, burst: 3)
            $0.foundTagClientLimit = RateLimit(perSecond: 1.0 / 3600, burst: 1)
        })
        let (_, sentinel) = try await harness.sentinel()
        try await harness.run(.live) { client in
            var serial = 0
            /// A header naming a fresh address each time, as a client walking through addresses would send.
            func forged() -> HTTPFields {
                serial += 1
                return [.xForwardedFor: "198.51.100.\(serial)"]
            }
            let ann = try await client.owner("ann@example.org")
            let bike = try await client.bike(ann)
            #expect(try await client.send(.post, "/v1/bikes/\(bike.id)/missing", token: ann).status == .ok)
            #expect(try await client.send(.post, "/v1/sightings", token: sentinel,
                                          json: Fixture.Batch(sightings: [Fixture.sighting()])).status == .ok)

            // "Found a tag?": one look-up an hour per client; a new address in the header is still the same client.
            let lookup = FoundTagLookup(tag: "\(Fixture.beaconA)/1/25626")
            #expect(try await client.send(.post, "/v1/found/lookup", json: lookup, headers: forged()).status == .ok)
            expectError(try await client.send(.post, "/v1/found/lookup", json: lookup, headers: forged()), .tooManyRequests, "rate_limited")

            // Sign-up: the owner above spent one; two more, then refused whatever the header says.
            for _ in 0..<2 {
                #expect(try await client.send(.post, "/v1/accounts", json: ["email": "owner\(serial)@example.org", "password": "correct horse battery"],
                                              headers: forged()).status == .created)
            }
            expectError(try await client.send(.post, "/v1/accounts", json: ["email": "eve@example.org", "password": "correct horse battery"],
                                              headers: forged()), .tooManyRequests, "rate_limited")

            // Log-in: wrong guesses are counted against the peer, not against the address each one claims.
            for _ in 0..<3 {
                let guess = try await client.send(.post, "/v1/sessions", json: ["email": "ann@example.org", "password": "wrong guess"], headers: forged())
                #expect(guess.status == .unauthorized || guess.status == .tooManyRequests)
            }

            // The read log keeps the peer.
            #expect(try await client.send(.get, "/v1/bikes/\(bike.id)/sightings", token: ann, headers: forged()).status == .ok)

            let clients = try await harness.database.withSession { db in
                (try await db.raw("SELECT DISTINCT client FROM login_attempts").all().map { try $0.decode(column: "client", as: String.self) },
                 try await db.raw("SELECT client FROM sighting_reads").all().map { try $0.decode(column: "client", as: String.self) })
            }
            #expect(clients.0 == ["127.0.0.1"])
            #expect(clients.1 == ["127.0.0.1"])
            let perClient = try await harness.rateBucketKeys().filter { $0.hasPrefix(AccountRoutes.signupPrefix) || $0.hasPrefix(FoundTagRoutes.clientPrefix) }
            #expect(perClient == [FoundTagRoutes.clientPrefix + "127.0.0.1", AccountRoutes.signupPrefix + "127.0.0.1"].sorted())
        }
    }
}
