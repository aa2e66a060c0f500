import Foundation
import Hummingbird
import SQLKit

/// Who is calling: an owner (by session) or an enrolled, unrevoked sentinel.
enum Identity: Sendable {
    case owner(accountID: String)
    case sentinel(Sentinel)
}

/// The owner's session a request presents: a bearer token (the command line) or the dashboard's cookie.
struct OwnerSession: Sendable {
    var session: SessionStore.Session
    var viaCookie: Bool
}

/// Resolves `Authorization: Bearer …`, or else the dashboard's session cookie, to an identity, and
/// enforces which kind a route needs. Cookie sessions expire by `SessionPolicy` and must pass the
/// CSRF check on requests that change something; bearer tokens are not sent by browsers on their own,
/// so they need no such check.
struct Authenticator: Sendable {
    let database: Database
    let policy: SessionPolicy
    let now: @Sendable () -> Int64

    private enum Caller {
        case owner(OwnerSession)
        case sentinel(Sentinel)
    }

    func identify(_ request: Request) async throws -> Identity {
        switch try await caller(request) {
        case let .owner(owner): .owner(accountID: owner.session.accountID)
        case let .sentinel(sentinel): .sentinel(sentinel)
        }
    }

    func owner(_ request: Request) async throws -> String {
        try await ownerSession(request).session.accountID
    }

    func ownerSession(_ request: Request) async throws -> OwnerSession {
        guard case let .owner(owner) = try await caller(request) else { throw APIError.ownerOnly }
        return owner
    }

    func sentinel(_ request: Request) async throws -> Sentinel {
        guard case let .sentinel(sentinel) = try await caller(request) else { throw APIError.sentinelOnly }
        return sentinel
    }

    private func caller(_ request: Request) async throws -> Caller {
        if let header = request.headers[.authorization] {
            return try await bearer(header)
        }
        guard let token = request.cookies[SessionCookie.session]?.value, !token.isEmpty else { throw APIError.unauthenticated }
        return .owner(try await cookie(token, request))
    }

    private func bearer(_ header: String) async throws -> Caller {
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
        // A cookie session's token is only good as a cookie: presented as a bearer it would dodge its expiry.
        guard let session = try await SessionStore(database: database).find(tokenDigest: digest), session.kind == .token else {
            throw APIError.unauthenticated
        }
        return .owner(OwnerSession(session: session, viaCookie: false))
    }

    private func cookie(_ token: String, _ request: Request) async throws -> OwnerSession {
        let sessions = SessionStore(database: database)
        guard let session = try await sessions.find(tokenDigest: Tokens.digest(token)), session.kind == .cookie else {
            throw APIError.sessionEnded
        }
        let now = now()
        guard policy.isLive(created: session.createdMilliseconds, lastUsed: session.lastUsedMilliseconds, now: now) else {
            _ = try await sessions.delete(id: session.id, accountID: session.accountID)
            throw APIError.sessionEnded
        }
        if !SessionCookie.isSafe(request.method), let refusal = SessionCookie.forgeryRefusal(request, sessionToken: token) {
            throw APIError(.forbidden, "csrf", refusal)
        }
        if policy.needsTouch(lastUsed: session.lastUsedMilliseconds, now: now) {
            try await sessions.touch(id: session.id, now: now)
        }
        return OwnerSession(session: session, viaCookie: true)
    }
}
