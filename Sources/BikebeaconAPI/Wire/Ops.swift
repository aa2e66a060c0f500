/// The body of every refused request: a stable machine-readable `error` code and a `message`
/// that says what went wrong and what to do.
public struct ErrorBody: Codable, Sendable, Equatable {
    public var error: String
    public var message: String

    public init(error: String, message: String) {
        self.error = error
        self.message = message
    }
}

/// `GET /healthz`: `ok` or `unavailable`, and which database the server runs on.
public struct Health: Codable, Sendable, Equatable {
    public var status: String
    /// `sqlite` or `postgres`.
    public var database: String

    public init(status: String, database: String) {
        self.status = status
        self.database = database
    }
}
