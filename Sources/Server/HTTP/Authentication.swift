import Hummingbird
import HummingbirdAuth

/// Who is calling, as an authenticator established it.
public enum Caller: Sendable {
    case owner(OwnerSession)
    /// Boxed: the request context is copied into every frame of a request's chain, and an open stream's connection
    /// task keeps the slabs of its deepest chain; a sentinel held inline made each of those 1 KB larger (#36, heaptrack).
    indirect case sentinel(Sentinel)
}

/// An owner logged in through one session: its id (to log it out, or mark it current), and
/// whether it came as the dashboard's cookie (whose log-out also clears the cookies).
public struct OwnerSession: Sendable, Equatable {
    public var accountID: String
    public var sessionID: String
    public var viaCookie: Bool
}

/// Authentication in one place: the routes that need a caller are registered on the group this
/// returns, whose authenticators attach the caller to the request context. Another way of
/// logging in (the dashboard's cookie session) is one more authenticator added here; routes do not change.
enum Authentication {
    static func group(_ router: Router<AppContext>, state: ServerState) -> RouterGroup<AppContext> {
        router.group()
            .add(middleware: BearerAuthenticator(database: state.database, sentinels: state.sentinelPolls))
            .add(middleware: CookieAuthenticator(database: state.database, policy: state.options.sessions, now: state.options.now))
    }
}

/// `Authorization: Bearer bbo_…` (an owner's session) or `Bearer bbs_…` (an enrolled sentinel).
/// No bearer header, or a token nobody holds: no caller (the route answers 401). A revoked
/// sentinel is refused outright, with what to do about it. Sentinels' tokens are checked from memory
/// (`SentinelPollCache`: a revocation or a new token counts within a second, wherever it was made).
struct BearerAuthenticator: AuthenticatorMiddleware {
    typealias Context = AppContext
    let database: Database
    let sentinels: SentinelPollCache

    func authenticate(request: Request, context: AppContext) async throws -> Caller? {
        guard let token = Self.token(request.headers[.authorization]) else { return nil }
        let digest = Tokens.digest(token)
        if token.hasPrefix(Tokens.sentinelPrefix) {
            guard let sentinel = try await sentinels.sentinel(tokenDigest: digest) else { return nil }
            guard sentinel.revokedMilliseconds == nil else {
                throw APIError(.unauthorized, "revoked", "this sentinel was revoked; ask the operator to enrol it again")
            }
            return .sentinel(sentinel)
        }
        // A cookie session's token is only good as a cookie: as a bearer it would dodge its expiry and the CSRF check.
        guard token.hasPrefix(Tokens.ownerPrefix),
              let session = try await SessionStore(database: database).find(tokenDigest: digest), session.kind == .token
        else { return nil }
        return .owner(OwnerSession(accountID: session.accountID, sessionID: session.id, viaCookie: false))
    }

    /// The token of a `Bearer` authorization (the scheme is case-insensitive, RFC 9110 §11.1). Compared byte by
    /// byte and returned as a slice of the header: every request a sentinel makes comes through here (#36, perf).
    static func token(_ header: String?) -> Substring? {
        guard let header = header?.drop(while: { $0 == " " }), let space = header.utf8.firstIndex(of: UInt8(ascii: " ")),
              header.utf8[..<space].elementsEqual("bearer".utf8, by: { $0 | 0x20 == $1 })
        else { return nil }
        let token = header[header.index(after: space)...].withoutOptionalWhitespace
        return token.isEmpty ? nil : token
    }
}

/// The dashboard's `bb_session` cookie, when the request has no bearer token. The session must be
/// live by `SessionPolicy`, and a request that changes something must pass `SessionCookie`'s CSRF
/// check; an unknown or ended session is a 401 that says so, so the page can ask to log in again.
struct CookieAuthenticator: AuthenticatorMiddleware {
    typealias Context = AppContext
    let database: Database
    let policy: SessionPolicy
    let now: @Sendable () -> Int64

    func authenticate(request: Request, context: AppContext) async throws -> Caller? {
        guard context.identity == nil, request.headers[.authorization] == nil,
              let token = request.cookies[SessionCookie.session]?.value, !token.isEmpty
        else { return nil }
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
        return .owner(OwnerSession(accountID: session.accountID, sessionID: session.id, viaCookie: true))
    }
}

extension AppContext {
    /// The logged-in owner, or the refusal a route for owners gives everyone else.
    func owner() throws(APIError) -> OwnerSession {
        switch identity {
        case let .owner(session): session
        case .sentinel: throw .ownerOnly
        case nil: throw .unauthenticated
        }
    }

    /// The calling sentinel, or the refusal a route for sentinels gives everyone else.
    func sentinel() throws(APIError) -> Sentinel {
        switch identity {
        case let .sentinel(sentinel): sentinel
        case .owner: throw .sentinelOnly
        case nil: throw .unauthenticated
        }
    }
}
