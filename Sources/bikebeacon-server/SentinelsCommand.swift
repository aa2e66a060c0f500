import ArgumentParser
import Server

struct Sentinels: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Enrol, list, rotate and revoke sentinels.", subcommands: [Add.self, List.self, Show.self, Rotate.self, Revoke.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Enrol a sentinel; prints its token as the last line.")
        @Option var name: String
        // `.unconditional`: a negative value such as `-0.12` is the value, not another option.
        @Option(parsing: .unconditional, help: "Where the sentinel stands; its sightings are placed here.") var latitude: Double?
        @Option(parsing: .unconditional) var longitude: Double?
        @Flag(help: "A sentinel that moves (a van, a bus): no fixed place; its sightings carry the position its GPS gives.")
        var roaming = false
        @Option(help: "The e-mail of the account whose home sentinel this is: on that owner's request (\"Find my tag\" on the dashboard) it reports the tags it hears for two minutes.")
        var owner: String?
        @Option(help: "The e-mail of whoever hosts the sentinel (the cafe): mailed when it stops listening and when it recovers (needs serve --smtp-url).")
        var hostEmail: String?
        @OptionGroup var database: DatabaseOption

        func validate() throws {
            if roaming {
                guard latitude == nil, longitude == nil else { throw ValidationError("a --roaming sentinel has no fixed place: leave out --latitude and --longitude") }
            } else {
                guard latitude != nil, longitude != nil else { throw ValidationError("give --latitude and --longitude of its place, or --roaming for one that moves") }
            }
        }

        func run() async throws {
            let (sentinel, token) = try await database.with { db in
                try await SentinelStore(database: db).add(name: name, latitude: latitude, longitude: longitude, ownerEmail: owner,
                                                          hostEmail: hostEmail, now: ServerOptions.wallClock())
            }
            if let latitude = sentinel.latitude, let longitude = sentinel.longitude {
                print("enrolled sentinel '\(sentinel.name)' at \(latitude), \(longitude); its token (shown once):")
            } else {
                print("enrolled roaming sentinel '\(sentinel.name)' (its sightings carry their own position); its token (shown once):")
            }
            print(token)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List sentinels with their health: state (listening, degraded, silent, retired), since when, the last heartbeat and why.")
        @OptionGroup var database: DatabaseOption

        func run() async throws {
            let (sentinels, health) = try await database.with { db in
                (try await SentinelStore(database: db).list(), try await SentinelHealthStore(database: db).all())
            }
            let now = ServerOptions.wallClock()
            print(SentinelHealthReport.listHeader)
            for sentinel in sentinels { print(SentinelHealthReport.listLine(sentinel, health[sentinel.id], now: now)) }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "One sentinel's last heartbeat and its last 20 changes of state.")
        @Argument var name: String
        @OptionGroup var database: DatabaseOption

        func run() async throws {
            let lines = try await database.with { db in
                guard let sentinel = try await SentinelStore(database: db).list().first(where: { $0.name == name }) else {
                    throw SentinelError.notFound(name)
                }
                let store = SentinelHealthStore(database: db)
                return SentinelHealthReport.show(sentinel, try await store.all()[sentinel.id],
                                                 transitions: try await store.transitions(sentinelID: sentinel.id), now: ServerOptions.wallClock())
            }
            for line in lines { print(line) }
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
