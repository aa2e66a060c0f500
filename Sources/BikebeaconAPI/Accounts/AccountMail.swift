/// `POST /v1/password-reset` and `POST /v1/email-verification`: the address to mail a link to.
public struct EmailAddressRequest: Codable, Sendable, Equatable {
    public var email: String

    public init(email: String) {
        self.email = email
    }
}

/// `POST /v1/password-reset/confirm`: the token from the mailed link and the new password.
public struct PasswordResetConfirmation: Codable, Sendable, Equatable {
    public var token: String
    public var password: String

    public init(token: String, password: String) {
        self.token = token
        self.password = password
    }
}

/// `POST /v1/email-verification/confirm`: the token from the mailed link.
public struct EmailVerificationConfirmation: Codable, Sendable, Equatable {
    public var token: String

    public init(token: String) {
        self.token = token
    }
}
