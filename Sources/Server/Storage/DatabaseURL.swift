/// Where the server keeps its data: one SQLite file (the default) or a PostgreSQL server.
public enum DatabaseURL: Sendable, Equatable, CustomStringConvertible {
    case sqlite(path: String)
    case postgres(url: String)

    public static let defaultText = "sqlite://./bikebeacon.sqlite"

    /// Parses `sqlite://RELATIVE/PATH`, `sqlite:///ABSOLUTE/PATH` or `postgres://…` (`postgresql://…`).
    public init(parsing text: String) throws(DatabaseURLError) {
        if text.hasPrefix("sqlite://") {
            let path = String(text.dropFirst("sqlite://".count))
            guard !path.isEmpty else { throw DatabaseURLError(text: text) }
            self = .sqlite(path: path)
        } else if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            self = .postgres(url: text)
        } else {
            throw DatabaseURLError(text: text)
        }
    }

    /// The URL without a password, for logs.
    public var description: String {
        switch self {
        case let .sqlite(path): "sqlite://\(path)"
        case let .postgres(url): Self.redacted(url)
        }
    }

    static func redacted(_ url: String) -> String {
        guard let at = url.lastIndex(of: "@"), let scheme = url.range(of: "://") else { return url }
        let credentials = url[scheme.upperBound..<at]
        guard let colon = credentials.firstIndex(of: ":") else { return url }
        return String(url[..<colon]) + ":***" + String(url[at...])
    }
}

public struct DatabaseURLError: Error, CustomStringConvertible, Sendable {
    public var text: String
    public var description: String {
        "'\(DatabaseURL.redacted(text))' is not a database URL; use sqlite:///path/file.sqlite, sqlite://./relative.sqlite or postgres://user:password@host:5432/database"
    }
}
