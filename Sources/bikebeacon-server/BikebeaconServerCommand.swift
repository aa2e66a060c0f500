import ArgumentParser
import Foundation
import Logging
import Server

@main
struct BikebeaconServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bikebeacon-server",
        abstract: "The bikebeacon server: owners, bikes, the missing list and sightings over HTTP.",
        subcommands: [Serve.self, Sentinels.self, Operators.self, Abuse.self, Sightings.self, Reads.self, Backup.self, Restore.self])
}

/// `--database URL`, shared by every subcommand.
struct DatabaseOption: ParsableArguments {
    @Option(name: .long, help: "sqlite:///path/file.sqlite, sqlite://./relative.sqlite or postgres://user:pass@host:port/db")
    var database: String = DatabaseURL.defaultText

    func url() throws -> DatabaseURL {
        do {
            return try DatabaseURL(parsing: database)
        } catch {
            throw ValidationError(error.description)
        }
    }

    func open(logger: Logger) async throws -> Server.Database {
        try await BikebeaconServer.openDatabase(try url(), logger: logger, now: ServerOptions.wallClock())
    }

    /// Opens the database for one CLI action and always closes it; store errors become usage errors.
    func with<R: Sendable>(_ body: (Server.Database) async throws -> R) async throws -> R {
        do {
            return try await Server.Database.using(try url(), logger: Logger(label: "bikebeacon-server"), migrateAt: ServerOptions.wallClock(), body)
        } catch let error as SentinelError {
            throw ValidationError(error.description)
        }
    }
}
