import ArgumentParser
import Logging
import Server

/// The bench commands' `--database`: parsed (a bad URL is a usage error), opened and migrated, and shut down
/// after `body` however it ends.
enum BenchDatabase {
    static func with<T>(_ text: String, logger: Logger = Logger(label: "bikebeacon-bench"), now: Int64 = ServerOptions.wallClock(),
                        _ body: (Database) async throws -> T) async throws -> T {
        let url: DatabaseURL
        do {
            url = try DatabaseURL(parsing: text)
        } catch {
            throw ValidationError(error.description)
        }
        let db = try await BikebeaconServer.openDatabase(url, logger: logger, now: now)
        do {
            let result = try await body(db)
            await db.shutdown()
            return result
        } catch {
            await db.shutdown()
            throw error
        }
    }
}
