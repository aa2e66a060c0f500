import Foundation
import Hummingbird
import SQLKit

/// Who is calling: an owner (by session token) or an enrolled, unrevoked sentinel.
enum Identity: Sendable {
    case owner(accountID: String)
    case sentinel(Sentinel)
}

/// Resolves `Authorization: Bearer …` to an identity, and enforces which kind a route needs.
struct Authenticator: Sendable {
    let database: Database

    func identify(_ request: Request) async throws -> Identity {
        guard let header = request.headers[.authorization] else { throw APIError.unauthenticated }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { throw APIError.unauthenticated }
        let token = String(parts[1]).trimmingCharacters(in: .whitespaces)
        let digest = Tokens.digest(token)
        if token.hasPrefix(Tokens.sentinelPrefix) {
            guard let sentinel = try await SentinelStore(database: database).find(tokenDigest: digest) else {
                throw APIError.unauthenticated
            }
            guard sentinel.revokedMilliseconds == nil else {
                throw APIError(.forbidden, "revoked", "this sentinel was revoked; ask the operator to enrol it again")
            }
            return .sentinel(sentinel)
        }
        guard let accountID = try await AccountStore(database: database).account(sessionDigest: digest) else {
            throw APIError.unauthenticated
        }
        return .owner(accountID: accountID)
    }

    func owner(_ request: Request) async throws -> String {
        guard case let .owner(accountID) = try await identify(request) else { throw APIError.ownerOnly }
        return accountID
    }

    func sentinel(_ request: Request) async throws -> Sentinel {
        guard case let .sentinel(sentinel) = try await identify(request) else { throw APIError.sentinelOnly }
        return sentinel
    }
}
