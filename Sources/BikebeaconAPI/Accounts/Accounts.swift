/// `POST /v1/accounts` and `POST /v1/sessions`: an owner's email and password.
public struct Credentials: Codable, Sendable, Equatable {
    public var email: String
    public var password: String

    public init(email: String, password: String) {
        self.email = email
        self.password = password
    }
}

/// `PUT /v1/account/password`: the password now and the one to use from now on.
public struct PasswordChange: Codable, Sendable, Equatable {
    public var currentPassword: String
    public var newPassword: String

    public init(currentPassword: String, newPassword: String) {
        self.currentPassword = currentPassword
        self.newPassword = newPassword
    }
}

/// An owner's account as `POST /v1/accounts` and `GET /v1/account` show it.
public struct Account: Codable, Sendable, Equatable {
    public var id: String
    public var email: String
    /// On `GET /v1/account`: whether the account is also an operator (sees the Network page).
    public var `operator`: Bool?

    public init(id: String, email: String, operator isOperator: Bool? = nil) {
        self.id = id
        self.email = email
        self.operator = isOperator
    }
}

/// A bearer token, as `POST /v1/sessions` hands it out.
public struct Token: Codable, Sendable, Equatable {
    public var token: String

    public init(token: String) {
        self.token = token
    }
}

/// `PUT /v1/account/webhook`: where the owner wants events POSTed.
public struct WebhookRequest: Codable, Sendable, Equatable {
    public var url: String

    public init(url: String) {
        self.url = url
    }
}

/// The webhook as set; `secret` keys the `BikeBeacon-Signature` HMAC and is shown only here.
public struct Webhook: Codable, Sendable, Equatable {
    public var url: String
    public var secret: String

    public init(url: String, secret: String) {
        self.url = url
        self.secret = secret
    }
}
