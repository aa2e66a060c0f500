import BikebeaconAPI
import Hummingbird

/// Password reset and email verification: links mailed to the owner, redeemed once.
enum AccountMailRoutes {
    static let invalidToken = APIError(.badRequest, "invalid_token",
                                       "this link is unknown, already used or expired; ask for a new one")

    static func add(to router: Router<AppContext>, state: ServerState) {
        let tokens = AccountTokenStore(database: state.database)

        // Always 202, whether or not the address has an account, so the endpoint cannot be used to find accounts.
        router.post("/v1/password-reset") { request, context in
            let body = try await JSONResponse.decode(EmailAddressRequest.self, from: request, context: context)
            if let email = try? AccountRoutes.normalised(email: body.email), state.mailer.configured,
               let account = try await state.accounts.credentials(email: email),
               let token = try await tokens.issue(accountID: account.id, purpose: .passwordReset, now: state.now) {
                state.mailer.sendPasswordReset(to: email, token: token)
            }
            return Response(status: .accepted)
        }

        router.post("/v1/password-reset/confirm") { request, context in
            let body = try await JSONResponse.decode(PasswordResetConfirmation.self, from: request, context: context)
            try AccountRoutes.check(password: body.password)
            let now = state.now
            // The token first: a made-up one must not cost a bcrypt hash (redeeming below is what decides).
            guard try await tokens.isRedeemable(body.token, purpose: .passwordReset, now: now) else { throw invalidToken }
            let hash = try await AccountRoutes.hash(body.password, state: state)
            // The link proves the owner reads this mailbox: the address counts as verified, and old sessions end.
            let account = try await tokens.redeem(body.token, purpose: .passwordReset, now: now) { accountID, db in
                try await db.raw("""
                    UPDATE accounts SET password_hash = \(bind: hash), email_verified_ms = COALESCE(email_verified_ms, \(bind: now))
                    WHERE id = \(bind: accountID)
                    """).run()
                try await db.raw("DELETE FROM sessions WHERE account_id = \(bind: accountID)").run()
                try await SessionStore.ended(accountID: accountID, in: db)
            }
            guard let account else { throw invalidToken }
            await state.sessions.wakeStreams(of: account)
            return Response(status: .noContent)
        }

        router.post("/v1/email-verification") { request, context in
            let body = try await JSONResponse.decode(EmailAddressRequest.self, from: request, context: context)
            if let email = try? AccountRoutes.normalised(email: body.email), state.mailer.configured,
               let account = try await state.accounts.credentials(email: email),
               try await !tokens.isVerified(accountID: account.id) {
                try await sendVerification(accountID: account.id, email: email, state: state)
            }
            return Response(status: .accepted)
        }

        router.post("/v1/email-verification/confirm") { request, context in
            let body = try await JSONResponse.decode(EmailVerificationConfirmation.self, from: request, context: context)
            let now = state.now
            let account = try await tokens.redeem(body.token, purpose: .emailVerification, now: now) { accountID, db in
                try await db.raw("""
                    UPDATE accounts SET email_verified_ms = COALESCE(email_verified_ms, \(bind: now)) WHERE id = \(bind: accountID)
                    """).run()
            }
            guard account != nil else { throw invalidToken }
            return Response(status: .noContent)
        }
    }

    /// Mails a fresh confirmation link (sign-up with `--require-verified-email`, or asked again).
    static func sendVerification(accountID: String, email: String, state: ServerState) async throws {
        guard state.mailer.configured else { return }
        if let token = try await AccountTokenStore(database: state.database)
            .issue(accountID: accountID, purpose: .emailVerification, now: state.now) {
            state.mailer.sendVerification(to: email, token: token)
        }
    }

    /// With `--require-verified-email`, a session only for confirmed addresses.
    static func checkVerified(accountID: String, state: ServerState) async throws {
        guard state.options.requireVerifiedEmail else { return }
        guard try await AccountTokenStore(database: state.database).isVerified(accountID: accountID) else {
            throw APIError(.forbidden, "email_unverified",
                           "confirm your email address with the link we mailed you; POST /v1/email-verification sends a new one")
        }
    }
}
