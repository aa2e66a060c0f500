import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import Server

/// Who may call what: owner A, owner B, a sentinel, anonymous, and a revoked sentinel, against every endpoint.
enum AuthorizationScenarios {
    enum Caller: String, CaseIterable { case ownerA, ownerB, sentinel, anonymous, revoked }

    struct Row {
        var method: HTTPRequest.Method
        var path: String
        var body: String?
        /// Expected status per caller.
        var expected: [Caller: HTTPResponse.Status]
    }

    static func matrix(_ backend: Backend) async throws {
        let harness = try await Harness.make(backend)
        let (_, sentinel) = try await harness.sentinel("garage")
        let (_, revoked) = try await harness.sentinel("stolen-pi")
        try await SentinelStore(database: harness.database).revoke(name: "stolen-pi", now: harness.options.now())
        try await harness.run { client in
            let ownerA = try await client.owner("a@example.org")
            let ownerB = try await client.owner("b@example.org")
            let bike = try await client.bike(ownerA)
            let tokens: [Caller: String] = [.ownerA: ownerA, .ownerB: ownerB, .sentinel: sentinel, .revoked: revoked]

            let ownerOnly: (HTTPResponse.Status) -> [Caller: HTTPResponse.Status] = { ok in
                [.ownerA: ok, .ownerB: .notFound, .sentinel: .forbidden, .anonymous: .unauthorized, .revoked: .unauthorized]
            }
            let anyOwner: (HTTPResponse.Status) -> [Caller: HTTPResponse.Status] = { ok in
                [.ownerA: ok, .ownerB: ok, .sentinel: .forbidden, .anonymous: .unauthorized, .revoked: .unauthorized]
            }
            let sentinelOnly: [Caller: HTTPResponse.Status] =
                [.ownerA: .forbidden, .ownerB: .forbidden, .sentinel: .ok, .anonymous: .unauthorized, .revoked: .unauthorized]
            let rows: [Row] = [
                Row(method: .get, path: "/v1/bikes/\(bike.id)", expected: ownerOnly(.ok)),
                Row(method: .patch, path: "/v1/bikes/\(bike.id)", body: #"{"notes":"x"}"#, expected: ownerOnly(.ok)),
                Row(method: .get, path: "/v1/bikes/\(bike.id)/sightings", expected: ownerOnly(.ok)),
                Row(method: .get, path: "/v1/bikes/\(bike.id)/sightings?format=csv", expected: ownerOnly(.ok)),
                Row(method: .get, path: "/v1/bikes/\(bike.id)/coverage", expected: ownerOnly(.ok)),
                Row(method: .post, path: "/v1/bikes/\(bike.id)/missing", expected: ownerOnly(.ok)),
                Row(method: .post, path: "/v1/bikes/\(bike.id)/recovered", expected: ownerOnly(.ok)),
                Row(method: .get, path: "/v1/bikes", expected: anyOwner(.ok)),
                Row(method: .get, path: "/v1/account", expected: anyOwner(.ok)),
                Row(method: .get, path: "/v1/network/coverage", expected: anyOwner(.ok)),
                // Neither owner is an operator.
                Row(method: .get, path: "/v1/network/sentinels",
                    expected: [.ownerA: .forbidden, .ownerB: .forbidden, .sentinel: .forbidden, .anonymous: .unauthorized, .revoked: .unauthorized]),
                Row(method: .get, path: "/v1/missing", expected: sentinelOnly),
                Row(method: .post, path: "/v1/sightings", body: #"{"sightings":[]}"#, expected: sentinelOnly),
                Row(method: .delete, path: "/v1/bikes/\(bike.id)", expected: ownerOnly(.noContent)),
            ]
            for row in rows {
                // Owner A last, so a DELETE does not remove the bike before the others are checked.
                for caller in [Caller.ownerB, .sentinel, .anonymous, .revoked, .ownerA] {
                    let response = try await client.send(row.method, row.path, token: tokens[caller], raw: row.body)
                    let expected = try #require(row.expected[caller])
                    #expect(response.status == expected, "\(caller) \(row.method) \(row.path): \(String(buffer: response.body))")
                    if expected.code >= 400 { expectError(response, expected) }
                }
            }
            // A garbage token and a non-bearer scheme are anonymous.
            expectError(try await client.send(.get, "/v1/bikes", token: "bbo_forged"), .unauthorized, "unauthenticated")
            expectError(try await client.send(.get, "/v1/bikes", headers: [.authorization: "Basic YTpi"]), .unauthorized)
            // The scheme is case-insensitive (RFC 9110); a sentinel token with an owner's prefix is nobody's.
            #expect(try await client.send(.get, "/v1/bikes", headers: [.authorization: "bearer \(ownerA)"]).status == .ok)
            let disguised = "bbo_" + sentinel.dropFirst("bbs_".count)
            expectError(try await client.send(.get, "/v1/missing", token: disguised), .unauthorized, "unauthenticated")
            let revokedResponse = try await client.send(.get, "/v1/missing", token: revoked)
            expectError(revokedResponse, .unauthorized, "revoked")
        }
    }
}
