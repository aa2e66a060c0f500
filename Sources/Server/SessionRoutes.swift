import Hummingbird

/// An owner's sessions: `GET /v1/account/sessions` lists them (the one asking is `current`),
/// `DELETE /v1/account/sessions/{id}` ends one, as when a phone is lost.
enum SessionRoutes {
    struct SessionJSON: Codable, Sendable {
        var id: String
        /// `token` (command line, `Authorization: Bearer`) or `cookie` (the dashboard).
        var kind: String
        var createdAt: String
        var lastUsedAt: String
        /// When a cookie session ends unless used before (idle), or at the latest (absolute); tokens do not expire.
        var expiresAt: String?
        var userAgent: String?
        var current: Bool

        init(_ session: SessionStore.Session, policy: SessionPolicy, current: Bool) {
            id = session.id
            kind = session.kind.rawValue
            createdAt = Timestamp.format(milliseconds: session.createdMilliseconds)
            lastUsedAt = Timestamp.format(milliseconds: session.lastUsedMilliseconds)
            expiresAt = session.kind == .cookie
                ? Timestamp.format(milliseconds: policy.expiry(created: session.createdMilliseconds, lastUsed: session.lastUsedMilliseconds))
                : nil
            userAgent = session.userAgent
            self.current = current
        }
    }

    struct SessionListJSON: Codable, Sendable {
        var sessions: [SessionJSON]
    }

    static func add(to router: Router<AppContext>, state: ServerState) {
        router.get("/v1/account/sessions") { request, _ in
            let owner = try await state.auth.ownerSession(request)
            let policy = state.options.sessions
            let now = state.now
            var live: [SessionJSON] = []
            for session in try await state.sessions.list(accountID: owner.session.accountID) {
                if session.kind == .cookie, !policy.isLive(created: session.createdMilliseconds, lastUsed: session.lastUsedMilliseconds, now: now) {
                    _ = try await state.sessions.delete(id: session.id, accountID: session.accountID)
                    continue
                }
                live.append(SessionJSON(session, policy: policy, current: session.id == owner.session.id))
            }
            return try JSONResponse.make(SessionListJSON(sessions: live))
        }

        router.delete("/v1/account/sessions/{id}") { request, context in
            let owner = try await state.auth.ownerSession(request)
            let id = try context.parameters.require("id")
            guard try await state.sessions.delete(id: id, accountID: owner.session.accountID) else {
                throw APIError(.notFound, "not_found", "no such session on this account (it may have ended already)")
            }
            var response = Response(status: .noContent)
            if owner.viaCookie, id == owner.session.id { SessionCookie.clear(on: &response, secure: SessionCookie.isSecure(request)) }
            return response
        }
    }
}
