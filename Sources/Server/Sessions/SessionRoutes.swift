import BikebeaconAPI
import Hummingbird

/// An owner's sessions: `GET /v1/account/sessions` lists them (the one asking is `current`),
/// `DELETE /v1/account/sessions/{id}` ends one, as when a phone is lost.
enum SessionRoutes {
    static func json(_ session: SessionStore.Session, policy: SessionPolicy, current: Bool) -> Session {
        Session(id: session.id, kind: session.kind.rawValue,
                createdAt: Timestamp.format(milliseconds: session.createdMilliseconds),
                lastUsedAt: Timestamp.format(milliseconds: session.lastUsedMilliseconds),
                expiresAt: session.kind == .cookie
                    ? Timestamp.format(milliseconds: policy.expiry(created: session.createdMilliseconds, lastUsed: session.lastUsedMilliseconds))
                    : nil,
                userAgent: session.userAgent, current: current)
    }

    static func add(to router: RouterGroup<AppContext>, state: ServerState) {
        router.get("/v1/account/sessions") { _, context in
            try JSONResponse.make(SessionList(sessions: try await live(for: context.owner(), state: state)))
        }

        router.delete("/v1/account/sessions/{id}") { request, context in
            let owner = try context.owner()
            let id = try context.parameters.require("id")
            guard try await state.sessions.delete(id: id, accountID: owner.accountID) else {
                throw APIError(.notFound, "not_found", "no such session on this account (it may have ended already)")
            }
            var response = Response(status: .noContent)
            if owner.viaCookie, id == owner.sessionID { SessionCookie.clear(on: &response, secure: SessionCookie.isSecure(request)) }
            return response
        }
    }

    /// The account's live sessions, oldest first; expired cookie sessions are dropped on the way.
    static func live(for owner: OwnerSession, state: ServerState) async throws -> [Session] {
        let policy = state.options.sessions
        let now = state.now
        var live: [Session] = []
        for session in try await state.sessions.list(accountID: owner.accountID) {
            if session.kind == .cookie, !policy.isLive(created: session.createdMilliseconds, lastUsed: session.lastUsedMilliseconds, now: now) {
                _ = try await state.sessions.delete(id: session.id, accountID: session.accountID)
                continue
            }
            live.append(json(session, policy: policy, current: session.id == owner.sessionID))
        }
        return live
    }
}
