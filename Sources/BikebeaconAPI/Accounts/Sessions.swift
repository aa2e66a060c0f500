/// `POST /v1/sessions`: log in; `cookie` true asks for the dashboard's cookie session instead of a bearer token.
public struct LogIn: Codable, Sendable, Equatable {
    public var email: String
    public var password: String
    public var cookie: Bool?

    public init(email: String, password: String, cookie: Bool? = nil) {
        self.email = email
        self.password = password
        self.cookie = cookie
    }
}

/// One of an owner's sessions, as `GET /v1/account/sessions` lists it and a cookie log-in answers.
public struct Session: Codable, Sendable, Equatable {
    public var id: String
    /// `token` (the command line, `Authorization: Bearer`) or `cookie` (the dashboard).
    public var kind: String
    public var createdAt: String
    public var lastUsedAt: String
    /// Cookie sessions only: when it ends unless used before (idle), or at the latest (absolute).
    public var expiresAt: String?
    public var userAgent: String?
    /// The session making the request.
    public var current: Bool

    public init(id: String, kind: String, createdAt: String, lastUsedAt: String, expiresAt: String?, userAgent: String?, current: Bool) {
        self.id = id
        self.kind = kind
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.expiresAt = expiresAt
        self.userAgent = userAgent
        self.current = current
    }
}

/// `GET /v1/account/sessions`: oldest first.
public struct SessionList: Codable, Sendable, Equatable {
    public var sessions: [Session]

    public init(sessions: [Session]) {
        self.sessions = sessions
    }
}
