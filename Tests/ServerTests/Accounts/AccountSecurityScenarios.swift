import BikebeaconAPI
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import Server

/// The account's other ways to a password oracle and its hygiene: changing the password without email,
/// deleting the account, the reset link, weak passwords, NUL bytes in text, and `nosniff` on JSON answers.
enum AccountSecurityScenarios {
    static let password = "correct horse battery"

    /// `PUT /v1/account/password`: the current password first (counted like a log-in), the new one by the rules;
    /// every other session ends, its open stream too, and the one that asked stays.
    static func passwordChange(_ backend: Backend) async throws {
        try await Harness.make(backend).run(.live) { client in
            let port = try #require(client.port)
            let laptop = try await client.owner("ann@example.org", password: password)
            let phone = try client.decode(Token.self, try await client.send(.post, "/v1/sessions",
                                                                             json: ["email": "ann@example.org", "password": password])).token
            let change = { (current: String, new: String) in
                try await client.send(.put, "/v1/account/password", token: laptop,
                                      json: PasswordChange(currentPassword: current, newPassword: new))
            }
            expectError(try await change("not my password", "a better password 2"), .forbidden, "invalid_credentials")
            let weak = try await change(password, "12345678")
            expectError(weak, .badRequest, "invalid_request")
            #expect(String(buffer: weak.body).contains("'newPassword'"))
            expectError(try await client.send(.put, "/v1/account/password", json: PasswordChange(currentPassword: password, newPassword: "x y z w v u")),
                        .unauthorized)

            let closed = try await StreamEndScenarios.closing(port: port, token: phone) {
                let status = try await change(password, "a better password 2").status
                #expect(status == .noContent)
            }
            #expect(closed < StreamEndScenarios.closesPromptly, "the other device's stream stayed open \(closed) after the password changed")
            expectError(try await client.send(.get, "/v1/account", token: phone), .unauthorized)
            #expect(try await client.send(.get, "/v1/account", token: laptop).status == .ok)
            expectError(try await client.send(.post, "/v1/sessions", json: ["email": "ann@example.org", "password": password]), .unauthorized)
            #expect(try await client.send(.post, "/v1/sessions", json: ["email": "ann@example.org", "password": "a better password 2"]).status == .ok)
        }
    }

    /// A stolen session is no faster a password oracle than the log-in form: `DELETE /v1/account` and the password
    /// change share its count.
    static func passwordChecksAreThrottled(_ backend: Backend) async throws {
        try await Harness.make(backend).run { client in
            let ann = try await client.owner("ann@example.org", password: password)
            for guess in 0..<3 {
                expectError(try await client.send(.delete, "/v1/account", token: ann, json: AccountDeletion(password: "guess \(guess)")),
                            .forbidden, "invalid_credentials")
            }
            for guess in 3..<5 {
                expectError(try await client.send(.put, "/v1/account/password", token: ann,
                                                  json: PasswordChange(currentPassword: "guess \(guess)", newPassword: "a better password 2")),
                            .forbidden, "invalid_credentials")
            }
            let held = try await client.send(.delete, "/v1/account", token: ann, json: AccountDeletion(password: password))
            expectError(held, .tooManyRequests, "rate_limited")
            #expect(held.headers[.retryAfter] != nil)
            #expect(try await client.send(.get, "/v1/account", token: ann).status == .ok, "the account is still there")
        }
    }

    /// A made-up reset token is refused before the new password is hashed: it answers in well under the time one
    /// bcrypt check at the server's cost (12) takes (hashed first, it would take at least that). Each is the quickest
    /// of five tries, taken in turn so both meet the same load (a parallel suite on two cores slowed the made-up
    /// token's answer to half a bcrypt check once, when the tries were taken one kind after the other).
    static func resetChecksTheTokenFirst(_ backend: Backend) async throws {
        let harness = try await Harness.make(backend, options: Harness.testOptions { $0.bcryptCost = 12 })
        try await harness.run { client in
            _ = try await client.send(.post, "/v1/accounts", json: ["email": "ann@example.org", "password": password])
            let stored = try #require(try await AccountStore(database: harness.database).credentials(email: "ann@example.org")).passwordHash
            func timed(_ body: () async throws -> Void) async throws -> Duration {
                let start = ContinuousClock.now
                try await body()
                return ContinuousClock.now - start
            }
            var bcrypt = Duration.seconds(3600)
            var madeUp = Duration.seconds(3600)
            for _ in 0..<5 {
                bcrypt = min(bcrypt, try await timed { _ = try await AccountRoutes.matches("a new password 2", hash: stored) })
                madeUp = min(madeUp, try await timed {
                    expectError(try await client.send(.post, "/v1/password-reset/confirm", json: ["token": "bbr_made_up", "password": "a new password 2"]),
                                .badRequest, "invalid_token")
                })
            }
            #expect(madeUp * 4 < bcrypt * 3, "a made-up token took \(madeUp), one bcrypt check \(bcrypt): the password was hashed first")
        }
    }

    static func weakPasswordAtSignUp(_ backend: Backend) async throws {
        try await Harness.make(backend).run { client in
            let refused = try await client.send(.post, "/v1/accounts", json: ["email": "ann@example.org", "password": "12345678"])
            expectError(refused, .badRequest, "invalid_request")
            #expect(String(buffer: refused.body).contains("'password'"))
            #expect(try await client.send(.post, "/v1/accounts", json: ["email": "ann@example.org", "password": password]).status == .created)
        }
    }

    /// A NUL in any text is a 400 that names the field, on PostgreSQL (which cannot store one) as on SQLite;
    /// JSON answers and errors say `nosniff`.
    static func nulBytesAndNosniff(_ backend: Backend) async throws {
        try await Harness.make(backend).run { client in
            let ann = try await client.owner("ann@example.org", password: password)
            let bike = try await client.bike(ann)
            let zone = try await client.send(.post, "/v1/bikes/\(bike.id)/dates", token: ann,
                                             raw: #"{"name": "Service", "due": "2027-03-01", "timeZone": "UTC\u0000junk"}"#)
            expectError(zone, .badRequest, "invalid_request")
            #expect(String(buffer: zone.body).contains("'timeZone'"), "\(String(buffer: zone.body))")
            let name = try await client.send(.patch, "/v1/bikes/\(bike.id)", token: ann, raw: #"{"name": "Comm\u0000uter"}"#)
            expectError(name, .badRequest, "invalid_request")
            #expect(String(buffer: name.body).contains("'name'"), "\(String(buffer: name.body))")
            // An escaped backslash before "u0000" is no NUL.
            let fine = try await client.send(.patch, "/v1/bikes/\(bike.id)", token: ann, raw: #"{"notes": "C:\\u0000"}"#)
            #expect(fine.status == .ok, "\(String(buffer: fine.body))")
            #expect(try client.decode(Bike.self, fine).notes == #"C:\u0000"#)

            #expect(fine.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
            #expect(name.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
            #expect(try await client.send(.get, "/v1/bikes", token: ann).headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
        }
    }
}
