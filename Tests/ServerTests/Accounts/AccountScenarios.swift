import BikebeaconAPI
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import Server

/// Sign-up, log-in, log-out, and the sign-up and login throttles.
enum AccountScenarios {
    static func accountsAndSessions(_ backend: Backend) async throws {
        try await Harness.make(backend).run { client in
            let created = try await client.send(.post, "/v1/accounts", json: ["email": "Ann@Example.org ", "password": "correct horse battery"])
            #expect(created.status == .created)
            #expect(try client.decode(Account.self, created).email == "ann@example.org")
            expectError(try await client.send(.post, "/v1/accounts", json: ["email": "ann@example.org", "password": "another password"]),
                        .conflict, "email_taken")
            expectError(try await client.send(.post, "/v1/accounts", json: ["email": "not-an-email", "password": "correct horse battery"]),
                        .badRequest, "invalid_request")
            expectError(try await client.send(.post, "/v1/accounts", json: ["email": "bob@example.org", "password": "short"]),
                        .badRequest, "invalid_request")

            expectError(try await client.send(.post, "/v1/sessions", json: ["email": "ann@example.org", "password": "wrong password"]),
                        .unauthorized, "invalid_credentials")
            expectError(try await client.send(.post, "/v1/sessions", json: ["email": "nobody@example.org", "password": "wrong password"]),
                        .unauthorized, "invalid_credentials")
            let session = try await client.send(.post, "/v1/sessions", json: ["email": "ann@example.org", "password": "correct horse battery"])
            #expect(session.status == .ok)
            let token = try client.decode(Token.self, session).token
            #expect(try await client.send(.get, "/v1/account", token: token).status == .ok)
            #expect(try await client.send(.delete, "/v1/sessions", token: token).status == .noContent)
            expectError(try await client.send(.get, "/v1/account", token: token), .unauthorized, "unauthenticated")
        }
    }

    static func loginThrottle(_ backend: Backend) async throws {
        try await Harness.make(backend).run { client in
            _ = try await client.owner("eve@example.org")
            for _ in 0..<5 {
                expectError(try await client.send(.post, "/v1/sessions", json: ["email": "eve@example.org", "password": "guess guess"]),
                            .unauthorized)
            }
            // The sixth attempt waits, even with the right password: guessing cannot continue at full speed.
            let throttled = try await client.send(.post, "/v1/sessions", json: ["email": "eve@example.org", "password": "correct horse battery"])
            expectError(throttled, .tooManyRequests, "rate_limited")
            #expect(throttled.headers[.retryAfter] != nil)
            // Another email is unaffected.
            _ = try await client.owner("frank@example.org")
        }
    }

    /// A script cannot mint accounts, each able to add bikes to every sentinel's missing list, at full speed
    /// from one address; other addresses, a second replica and the passing of time behave as owners expect.
    static func signupThrottle(_ backend: Backend) async throws {
        let clock = PushScenarios.Clock()
        let harness = try await Harness.make(backend, options: Harness.testOptions {
            $0.signupLimit = RateLimit(perSecond: 1.0 / 600, burst: 2)
            $0.now = clock.read
        })
        // Over a socket from loopback, where the test options' trusted proxy is: X-Forwarded-For names each client.
        try await harness.run(.live) { client in
            var serial = 0
            func signUp(from address: String, email: String? = nil) async throws -> TestResponse {
                serial += 1
                return try await client.send(.post, "/v1/accounts", json: ["email": email ?? "owner\(serial)@example.org", "password": "correct horse battery"],
                                             headers: [.xForwardedFor: address])
            }
            #expect(try await signUp(from: "198.51.100.7", email: "ann@example.org").status == .created)
            // A taken email spends a sign-up too, so probing which addresses have accounts is throttled as well.
            expectError(try await signUp(from: "198.51.100.7", email: "ann@example.org"), .conflict, "email_taken")
            let refused = try await signUp(from: "198.51.100.7")
            expectError(refused, .tooManyRequests, "rate_limited")
            #expect(refused.headers[.retryAfter] == "600")
            // What the client wrote before the proxy's entry proves nothing.
            expectError(try await signUp(from: "203.0.113.1, 198.51.100.7"), .tooManyRequests, "rate_limited")
            // Another address is another client; an IPv6 client is its /64.
            #expect(try await signUp(from: "198.51.100.8").status == .created)
            #expect(try await signUp(from: "2001:db8:1:2::1").status == .created)
            #expect(try await signUp(from: "2001:db8:1:2::ffff").status == .created)
            expectError(try await signUp(from: "2001:db8:1:2:abcd::9"), .tooManyRequests, "rate_limited")
            #expect(try await signUp(from: "2001:db8:1:3::1").status == .created)
            // Every replica on the database draws from the same bucket.
            let replica = try await BikebeaconServer.makeApplication(database: harness.database, options: harness.options, logger: Harness.logger)
            try await replica.test(.live) { inner in
                expectError(try await Client(inner: inner).send(.post, "/v1/accounts", json: ["email": "eve@example.org", "password": "correct horse battery"],
                                                                headers: [.xForwardedFor: "198.51.100.7"]), .tooManyRequests, "rate_limited")
            }
            // One more sign-up every 600 s.
            clock.advance(600_000)
            #expect(try await signUp(from: "198.51.100.7").status == .created)
            expectError(try await signUp(from: "198.51.100.7"), .tooManyRequests, "rate_limited")
            // A bucket that has refilled is the same as none, and its row goes: addresses seen once do not pile up.
            clock.advance(1_200_000)
            #expect(try await signUp(from: "192.0.2.1").status == .created)
            #expect(try await harness.rateBucketKeys() == ["signup:192.0.2.1"])
        }
    }

    /// Over a real socket the client is the connection's peer; a proxy on loopback is believed.
    static func signupThrottleCountsThePeer(_ backend: Backend) async throws {
        let harness = try await Harness.make(backend, options: Harness.testOptions {
            $0.signupLimit = RateLimit(perSecond: 1.0 / 3600, burst: 1)
        })
        try await harness.run(.live) { client in
            let credentials = ["email": "ann@example.org", "password": "correct horse battery"]
            #expect(try await client.send(.post, "/v1/accounts", json: credentials).status == .created)
            expectError(try await client.send(.post, "/v1/accounts", json: ["email": "bob@example.org", "password": "correct horse battery"]),
                        .tooManyRequests, "rate_limited")
            #expect(try await client.send(.post, "/v1/accounts", json: ["email": "bob@example.org", "password": "correct horse battery"],
                                          headers: [.xForwardedFor: "198.51.100.7"]).status == .created)
            #expect(try await harness.rateBucketKeys() == ["signup:127.0.0.1", "signup:198.51.100.7"])
        }
    }
}
