import Hummingbird
import HummingbirdAuth

/// Who is calling, as an authenticator established it.
public enum Caller: Sendable {
    case owner(OwnerSession)
    case sentinel(Sentinel)
}

/// An owner logged in through one session; the digest identifies that session (to log it out).
public struct OwnerSession: Sendable, Equatable {
    public var accountID: String
    public var sessionDigest: String
}

/// Authentication in one place: the routes that need a caller are registered on the group this
/// returns, whose authenticators attach the caller to the request context. Another way of
/// logging in (a cookie session) is one more authenticator added here; routes do not change.
enum Authentication {
    static func group(_ router: Router<AppContext>, state: ServerState) -> RouterGroup<AppContext> {
        router.group().add(middleware: BearerAuthenticator(database: state.database))
    }
}

/// `Authorization: Bearer bbo_…` (an owner's session) or `Bearer bbs_…` (an enrolled sentinel).
/// No bearer header, or a token nobody holds: no caller (the route answers 401). A revoked
/// sentinel is refused outright, with what to do about it.
struct BearerAuthenticator: AuthenticatorMiddleware {
    typealias Context = AppContext
    let database: Database

    func authenticate(request: Request, context: AppContext) async throws -> Caller? {
        guard let token = Self.token(request.headers[.authorization]) else { return nil }
        let digest = Tokens.digest(token)
        if token.hasPrefix(Tokens.sentinelPrefix) {
            guard let sentinel = try await SentinelStore(database: database).find(tokenDigest: digest) else { return nil }
            guard sentinel.revokedMilliseconds == nil else {
                throw APIError(.forbidden, "revoked", "this sentinel was revoked; ask the operator to enrol it again")
            }
            return .sentinel(sentinel)
        }
        guard token.hasPrefix(Tokens.ownerPrefix),
              let accountID = try await AccountStore(database: database).account(sessionDigest: digest)
        else { return nil }
        return .owner(OwnerSession(accountID: accountID, sessionDigest: digest))
    }

    /// The token of a `Bearer` authorization (the scheme is case-insensitive, RFC 9110 §11.1).
    static func token(_ header: String?) -> String? {
        guard let header else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
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
