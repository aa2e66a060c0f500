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
