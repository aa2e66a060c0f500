import ArgumentParser
import Server

struct Sentinels: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Enrol, list, rotate and revoke sentinels.", subcommands: [Add.self, List.self, Rotate.self, Revoke.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Enrol a sentinel; prints its token as the last line.")
        @Option var name: String
        // `.unconditional`: a negative value such as `-0.12` is the value, not another option.
        @Option(parsing: .unconditional, help: "Where the sentinel stands; its sightings are placed here.") var latitude: Double
        @Option(parsing: .unconditional) var longitude: Double
        @OptionGroup var database: DatabaseOption

        func run() async throws {
            let (sentinel, token) = try await database.with { db in
                try await SentinelStore(database: db).add(name: name, latitude: latitude, longitude: longitude, now: ServerOptions.wallClock())
            }
            print("enrolled sentinel '\(sentinel.name)' at \(sentinel.latitude), \(sentinel.longitude); its token (shown once):")
            print(token)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List sentinels.")
        @OptionGroup var database: DatabaseOption

        func run() async throws {
            let sentinels = try await database.with { try await SentinelStore(database: $0).list() }
            print("name\tlatitude\tlongitude\tstatus")
            for s in sentinels {
                print("\(s.name)\t\(s.latitude)\t\(s.longitude)\t\(s.revokedMilliseconds == nil ? "active" : "revoked")")
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a sentinel: its token stops working at once.")
        @Argument var name: String
        @OptionGroup var database: DatabaseOption

        func run() async throws {
            try await database.with { try await SentinelStore(database: $0).revoke(name: name, now: ServerOptions.wallClock()) }
            print("revoked sentinel '\(name)'")
        }
    }
}

extension Sentinels {
    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Give a sentinel a new token; the old one stops working at once. Prints the token as the last line.")
        @Argument var name: String
        @OptionGroup var database: DatabaseOption

        func run() async throws {
            let token = try await database.with { try await SentinelStore(database: $0).rotate(name: name) }
            print("new token for sentinel '\(name)' (shown once; put it in its config and restart it):")
            print(token)
        }
    }
}
