import BikebeaconAPI
import Foundation
import Hummingbird
import HummingbirdBcrypt
import NIOPosix

/// Owners: sign-up, log-in (bcrypt, throttled per email), log-out, and webhook settings.
enum AccountRoutes {
    /// Sign-up and log-in are open; the rest are on `callers`, the authenticated group.
    static func add(to router: Router<AppContext>, callers: RouterGroup<AppContext>, state: ServerState) {
        router.post("/v1/accounts") { request, context in
            let credentials = try await JSONResponse.decode(Credentials.self, from: request, context: context)
            let email = try normalised(email: credentials.email)
            try check(password: credentials.password)
            try await throttleSignUp(request, context: context, state: state)
            let hash = try await hash(credentials.password, state: state)
            guard let id = try await state.accounts.create(email: email, passwordHash: hash, now: state.now) else {
                throw APIError(.conflict, "email_taken", "an account with this email exists; log in instead")
            }
            if state.options.requireVerifiedEmail {
                try await AccountMailRoutes.sendVerification(accountID: id, email: email, state: state)
            }
            return try JSONResponse.make(Account(id: id, email: email), status: .created)
        }

        router.post("/v1/sessions") { request, context in
            let credentials = try await JSONResponse.decode(LogIn.self, from: request, context: context)
            let email = try normalised(email: credentials.email)
            let now = state.now
            // Counted before bcrypt: parallel guesses see each other, and a refused one costs no hashing.
            let attempt = try await state.logins.claim(email: email, client: client(of: request, context: context, state: state), now: now)
            let found = try await state.accounts.credentials(email: email)
            // Verify against a dummy hash when there is no account, so timing does not reveal which emails exist.
            let valid = try await matches(credentials.password, hash: found?.passwordHash ?? state.dummyPasswordHash)
            guard let account = found, valid else {
                throw APIError(.unauthorized, "invalid_credentials", "email or password is wrong")
            }
            try await state.logins.succeeded(attempt)
            try await AccountMailRoutes.checkVerified(accountID: account.id, state: state)
            let token = Tokens.make(prefix: Tokens.ownerPrefix)
            let cookie = credentials.cookie == true
            let session = try await state.sessions.create(accountID: account.id, tokenDigest: Tokens.digest(token), kind: cookie ? .cookie : .token,
                                                          userAgent: request.headers[.userAgent], now: now)
            guard cookie else { return try JSONResponse.make(Token(token: token)) }
            let policy = state.options.sessions
            var response = try JSONResponse.make(SessionRoutes.json(session, policy: policy, current: true))
            SessionCookie.set(on: &response, token: token, maxAgeSeconds: Int(policy.lifetimeMilliseconds / 1000),
                              secure: SessionCookie.isSecure(request))
            return response
        }

        callers.delete("/v1/sessions") { request, context in
            let owner = try context.owner()
            _ = try await state.sessions.delete(id: owner.sessionID, accountID: owner.accountID)
            var response = Response(status: .noContent)
            if owner.viaCookie { SessionCookie.clear(on: &response, secure: SessionCookie.isSecure(request)) }
            return response
        }

        callers.get("/v1/account") { _, context in
            let accountID = try context.owner().accountID
            let email = try await state.accounts.email(accountID: accountID) ?? ""
            let isOperator = try await OperatorStore(database: state.database).isOperator(accountID: accountID)
            return try JSONResponse.make(Account(id: accountID, email: email, operator: isOperator))
        }

        // A new password without email (a server with no SMTP has no reset link): the current one first,
        // counted like a log-in. Every other session ends, the one asking stays.
        callers.put("/v1/account/password") { request, context in
            let owner = try context.owner()
            let body = try await JSONResponse.decode(PasswordChange.self, from: request, context: context)
            try check(password: body.newPassword, field: "newPassword")
            try await confirm(password: body.currentPassword, owner: owner, request: request, context: context, state: state,
                              refusal: "'currentPassword' is wrong; the password was not changed")
            let hash = try await hash(body.newPassword, state: state)
            try await state.database.transaction { db in
                try await db.raw("UPDATE accounts SET password_hash = \(bind: hash) WHERE id = \(bind: owner.accountID)").run()
                try await SessionStore.deleteAll(accountID: owner.accountID, keeping: owner.sessionID, in: db)
            }
            await state.sessions.wakeStreams(of: owner.accountID)
            state.logger.notice("password changed by its owner; their other sessions ended", metadata: ["account": "\(owner.accountID)"])
            return Response(status: .noContent)
        }

        callers.put("/v1/account/webhook") { request, context in
            let accountID = try context.owner().accountID
            let body = try await JSONResponse.decode(WebhookRequest.self, from: request, context: context)
            guard let url = URL(string: body.url), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
                  url.host?.isEmpty == false, body.url.count <= 2000
            else { throw APIError.invalid("'url' must be an absolute http or https URL") }
            try await PushRoutes.checkTarget(host: url.host ?? "", field: "url", state: state)
            let webhook = AccountStore.Webhook(url: body.url, secret: Tokens.make(prefix: "whsec_"))
            try await state.accounts.setWebhook(accountID: accountID, webhook)
            return try JSONResponse.make(Webhook(url: webhook.url, secret: webhook.secret))
        }

        callers.delete("/v1/account/webhook") { _, context in
            let accountID = try context.owner().accountID
            try await state.accounts.setWebhook(accountID: accountID, nil)
            return Response(status: .noContent)
        }
    }

    /// Counts the sign-up against its client (see `ClientAddress`), before the bcrypt work; a taken email counts too,
    /// so the endpoint cannot be used to probe which addresses have accounts at full speed either.
    static func throttleSignUp(_ request: Request, context: AppContext, state: ServerState) async throws {
        let client = client(of: request, context: context, state: state)
        let now = state.now
        try await state.signupLimiter.forgetRefilled(prefix: signupPrefix, now: now)
        guard let wait = try await state.signupLimiter.retryAfter(signupPrefix + client, now: now) else { return }
        state.logger.notice("sign-up refused: too many from one client address; raise serve --signups-per-hour for a registration event",
                            metadata: ["client": "\(client)", "retry_after_s": "\(wait)"])
        throw APIError.rateLimited(retryAfter: wait, "too many sign-ups from your network; try again in \(wait) s")
    }

    static let signupPrefix = "signup:"

    /// Whom per-client limits count this request against (see `ClientAddress`).
    static func client(of request: Request, context: AppContext, state: ServerState) -> String {
        ClientAddress.key(peer: context.remoteAddress?.ipAddress, forwardedFor: request.headers[values: .xForwardedFor],
                          trusted: state.options.trustedProxies)
    }

    /// The logged-in owner's password, asked again before deleting the account or changing the password; counted like a
    /// log-in (`LoginGuard`), so a stolen session is no faster a password oracle than the log-in form.
    static func confirm(password: String, owner: OwnerSession, request: Request, context: AppContext, state: ServerState,
                        refusal: String) async throws {
        guard let email = try await state.accounts.email(accountID: owner.accountID),
              let stored = try await state.accounts.credentials(email: email) else { throw APIError.unauthenticated }
        let attempt = try await state.logins.claim(email: email, client: client(of: request, context: context, state: state), now: state.now)
        guard try await matches(password, hash: stored.passwordHash) else { throw APIError(.forbidden, "invalid_credentials", refusal) }
        try await state.logins.succeeded(attempt)
    }

    /// The address as stored: trimmed, lower-case. A control or bidi character is refused (the operator's `reads`
    /// and `abuse` print addresses, and a terminal would obey it).
    static func normalised(email: String) throws(APIError) -> String {
        let email = email.trimmingCharacters(in: .whitespaces).lowercased()
        if let unsafe = TerminalText.firstUnsafe(in: email) {
            throw .invalid("'email' holds a control or bidi character (\(TerminalText.name(unsafe))); type the address as plain text")
        }
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard email.count <= 254, parts.count == 2, !parts[0].isEmpty, parts[1].contains("."),
              !email.contains(where: { $0.isWhitespace })
        else { throw .invalid("'email' must be an email address") }
        return email
    }

    /// bcrypt's check, on the thread pool: it takes tens of milliseconds by design and must not stall an event loop.
    static func matches(_ password: String, hash: String) async throws -> Bool {
        try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(password, hash: hash) }
    }

    /// A new password, by `PasswordPolicy`.
    static func check(password: String, field: String = "password") throws(APIError) {
        if let problem = PasswordPolicy.problem(password, field: field) { throw .invalid(problem) }
    }

    /// bcrypt's hash at the configured cost, on the thread pool.
    static func hash(_ password: String, state: ServerState) async throws -> String {
        let cost = state.options.bcryptCost
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(password, cost: cost) }
    }
}
