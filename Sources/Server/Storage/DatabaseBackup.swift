import Durable
import Foundation
import Logging
import SQLKit
import Subprocesses

/// Copies a community server's data out while it runs, and puts a copy back after a loss.
///
/// SQLite: `VACUUM INTO` writes a consistent snapshot from one read transaction, so every
/// sighting acknowledged before the backup began is in it, and the server keeps serving.
/// PostgreSQL: Debian's `pg_dump` (one snapshot) and `pg_restore`, which know every type and
/// sequence better than a hand-written dump would.
public enum DatabaseBackup {
    /// What a backup holds, so the operator can see it is not empty.
    public struct Summary: Sendable, Equatable, CustomStringConvertible {
        public var accounts: Int
        public var bikes: Int
        public var sightings: Int
        public var description: String { "\(accounts) account(s), \(bikes) bike(s), \(sightings) sighting(s)" }
    }

    public static func backup(_ url: DatabaseURL, to file: String, logger: Logger) async throws -> Summary {
        guard !FileManager.default.fileExists(atPath: file) else {
            throw BackupError("\(file) already exists; choose a new file name (backups are never overwritten)")
        }
        switch url {
        case let .sqlite(path):
            guard FileManager.default.fileExists(atPath: path) else {
                throw BackupError("there is no database at \(path); check --database")
            }
            let temporary = file + ".partial"
            try? FileManager.default.removeItem(atPath: temporary)
            try await Database.using(url, logger: logger, maxConnections: 1, migrateAt: nil) { db in
                try await db.withSession { try await $0.raw("VACUUM INTO \(bind: temporary)").run() }
            }
            do {
                try AtomicFile.commit(temporary, to: file)
            } catch {
                throw BackupError("\(error)")
            }
            return try await summary(of: .sqlite(path: file), logger: logger)
        case let .postgres(text):
            try run("pg_dump", ["--format=custom", "--no-owner", "--file=\(file)", "--dbname=\(text)"], url: url)
            return try await summary(of: url, logger: logger)
        }
    }

    /// Puts `file` back as the database at `url`. The server must be stopped; an existing SQLite
    /// file or PostgreSQL schema is only replaced with `replacing`, so a slip cannot erase live data.
    public static func restore(_ url: DatabaseURL, from file: String, replacing: Bool, logger: Logger) async throws -> Summary {
        guard FileManager.default.fileExists(atPath: file) else { throw BackupError("there is no backup file at \(file)") }
        switch url {
        case let .sqlite(path):
            try await verify(sqliteBackup: file, logger: logger)
            if FileManager.default.fileExists(atPath: path), !replacing {
                throw BackupError("\(path) already exists; stop the server, then pass --replace to overwrite it with the backup")
            }
            let temporary = path + ".restoring"
            try? FileManager.default.removeItem(atPath: temporary)
            try await Database.using(.sqlite(path: file), logger: logger, maxConnections: 1, migrateAt: nil) { db in
                try await db.withSession { try await $0.raw("VACUUM INTO \(bind: temporary)").run() }
            }
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            do {
                try AtomicFile.commit(temporary, to: path)
            } catch {
                throw BackupError("\(error)")
            }
        case let .postgres(text):
            let hasData = try await Database.using(url, logger: logger, maxConnections: 1, migrateAt: nil) { db in
                try await db.withSession { session in
                    try await session.raw("SELECT COUNT(*) AS n FROM information_schema.tables WHERE table_name = 'schema_migrations'")
                        .first(decodingColumn: "n", as: Int.self) ?? 0
                }
            }
            if hasData > 0, !replacing {
                throw BackupError("the database already holds bikebeacon tables; stop the servers, then pass --replace to overwrite them")
            }
            try run("pg_restore", ["--clean", "--if-exists", "--no-owner", "--single-transaction", "--exit-on-error",
                                   "--dbname=\(text)", file], url: url)
        }
        return try await summary(of: url, logger: logger)
    }

    private static func verify(sqliteBackup file: String, logger: Logger) async throws {
        try await Database.using(.sqlite(path: file), logger: logger, maxConnections: 1, migrateAt: nil) { db in
            try await db.withSession { session in
                let check = try? await session.raw("PRAGMA integrity_check").first(decodingColumn: "integrity_check", as: String.self)
                guard check == "ok" else {
                    throw BackupError("\(file) is not an intact SQLite database (integrity check: \(check ?? "unreadable")); nothing was restored")
                }
                let migrated = try? await session.raw("SELECT COUNT(*) AS n FROM schema_migrations").first(decodingColumn: "n", as: Int.self)
                guard (migrated ?? 0) > 0 else {
                    throw BackupError("\(file) is not a bikebeacon backup (no schema_migrations table); nothing was restored")
                }
            }
        }
    }

    private static func summary(of url: DatabaseURL, logger: Logger) async throws -> Summary {
        try await Database.using(url, logger: logger, maxConnections: 1, migrateAt: nil) { db in
            try await db.withSession { session in
                func count(_ table: String) async throws -> Int {
                    try await session.raw("SELECT COUNT(*) AS n FROM \(unsafeRaw: table)").first(decodingColumn: "n", as: Int.self) ?? 0
                }
                return Summary(accounts: try await count("accounts"), bikes: try await count("bikes"), sightings: try await count("sightings"))
            }
        }
    }

    /// Runs a PostgreSQL client tool; its stderr becomes the error the operator reads.
    private static func run(_ tool: String, _ arguments: [String], url: DatabaseURL) throws {
        guard let executable = ["/usr/bin", "/usr/local/bin"].map({ "\($0)/\(tool)" }).first(where: FileManager.default.isExecutableFile) else {
            throw BackupError("\(tool) is not installed; install Debian's postgresql-client (the same major version as the server)")
        }
        let process = try ChildProcess.spawn(executable, arguments, stdout: .discard, stderr: .pipe)
        let message = String(decoding: process.readOutputToEnd(), as: UTF8.self)
        let status = process.wait()
        guard status == 0 else {
            throw BackupError("\(tool) failed for \(url) (exit \(status)): \(message.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
    }
}

public struct BackupError: Error, CustomStringConvertible, Sendable {
    public var description: String
    init(_ description: String) { self.description = description }
}
