import ArgumentParser
import Foundation
import Logging
import Server

struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy the database into FILE while the server runs (SQLite: VACUUM INTO; PostgreSQL: pg_dump).")
    @OptionGroup var database: DatabaseOption
    @Argument(help: "The backup file to create; an existing file is never overwritten.") var file: String

    func run() async throws {
        let summary = try await database.backupOrRestore { try await DatabaseBackup.backup($0, to: file, logger: $1) }
        print("backed up \(summary) to \(file)")
    }
}

struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Put a backup back as the database (SQLite file or PostgreSQL database). Stop the server first.")
    @OptionGroup var database: DatabaseOption
    @Flag(help: "Overwrite an existing database with the backup.") var replace = false
    @Argument(help: "A file made by 'bikebeacon-server backup'.") var file: String

    func run() async throws {
        let summary = try await database.backupOrRestore { try await DatabaseBackup.restore($0, from: file, replacing: replace, logger: $1) }
        print("restored \(summary) from \(file) into \(database.database)")
    }
}

extension DatabaseOption {
    /// Backups open the database themselves (no migrations: a backup is a copy, not an upgrade).
    func backupOrRestore<R>(_ body: (DatabaseURL, Logger) async throws -> R) async throws -> R {
        let url = try url()
        var logger = Logger(label: "bikebeacon-server")
        logger.logLevel = .warning
        do {
            return try await body(url, logger)
        } catch let error as BackupError {
            FileHandle.standardError.write(Data("bikebeacon-server: \(error)\n".utf8))
            throw ExitCode.failure
        }
    }
}
