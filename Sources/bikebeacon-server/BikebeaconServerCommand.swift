import ArgumentParser
import Foundation
import Logging
import Server

@main
struct BikebeaconServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bikebeacon-server",
        abstract: "The bikebeacon server: owners, bikes, the missing list and sightings over HTTP.",
        subcommands: [Serve.self, Sentinels.self, Backup.self, Restore.self])
}

/// `--database URL`, shared by every subcommand.
struct DatabaseOption: ParsableArguments {
    @Option(name: .long, help: "sqlite:///path/file.sqlite, sqlite://./relative.sqlite or postgres://user:pass@host:port/db")
    var database: String = DatabaseURL.defaultText

    func open(logger: Logger) async throws -> Server.Database {
        let url: DatabaseURL
        do {
            url = try DatabaseURL(parsing: database)
        } catch {
            throw ValidationError(error.description)
        }
        return try await BikebeaconServer.openDatabase(url, logger: logger, now: ServerOptions.wallClock())
    }

    /// Opens the database for one CLI action and always closes it; store errors become usage errors.
    func with<R>(_ body: (Server.Database) async throws -> R) async throws -> R {
        let db = try await open(logger: Logger(label: "bikebeacon-server"))
        do {
            let result = try await body(db)
            await db.shutdown()
            return result
        } catch let error as SentinelError {
            await db.shutdown()
            throw ValidationError(error.description)
        } catch {
            await db.shutdown()
            throw error
        }
    }
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve the HTTP API.")

    @Option(help: "Address to listen on.") var host = "127.0.0.1"
    @Option(help: "Port to listen on.") var port = 8080
    @OptionGroup var database: DatabaseOption
    @Option(help: "Sighting batches per second each sentinel may send (per server process).") var sentinelRate: Double = 10
    @Option(help: "bcrypt cost for new passwords (4…31).") var bcryptCost: UInt8 = 12

    func validate() throws {
        guard (4...31).contains(bcryptCost) else { throw ValidationError("--bcrypt-cost must be 4…31") }
        guard sentinelRate > 0 else { throw ValidationError("--sentinel-rate must be positive") }
    }

    func run() async throws {
        let logger = Logger(label: "bikebeacon-server")
        let db = try await database.open(logger: logger)
        logger.info("database ready", metadata: ["database": "\(db.url)"])
        let options = ServerOptions(host: host, port: port, bcryptCost: bcryptCost,
                                    sentinelRateLimit: RateLimit(perSecond: sentinelRate, burst: sentinelRate * 3))
        do {
            let app = try await BikebeaconServer.makeApplication(database: db, options: options, logger: logger)
            try await app.runService()
        } catch {
            await db.shutdown()
            throw error
        }
        await db.shutdown()
    }
}

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
