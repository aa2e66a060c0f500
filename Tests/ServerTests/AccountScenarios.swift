import BikebeaconAPI
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import Server

/// Sign-up, log-in, log-out and the login throttle.
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
}
