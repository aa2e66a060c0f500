import ArgumentParser
import Foundation
import Server

/// The database's own insert rate: the baseline `scripts/bench-server` divides ingest by.
struct RawInsertBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "raw-insert",
        abstract: "The database's own insert rate for sighting rows, in transactions of one batch: the ingest baseline.")

    @Option var rows = 50_000
    @Option var batch = 50
    @Option(help: "sqlite:///path/file.sqlite or postgres://user:pass@host:port/db")
    var database: String = DatabaseURL.defaultText

    func validate() throws {
        guard rows > 0, (1...1000).contains(batch) else { throw ValidationError("--rows must be positive and --batch 1…1000") }
    }

    func run() async throws {
        let result = try await BenchDatabase.with(database) { try await RawInsertBenchmark.run(on: $0, rows: rows, batch: batch) }
        print("raw-insert rows=\(result.rows) seconds=\(String(format: "%.3f", result.seconds)) rows_per_second=\(Int(result.rowsPerSecond))")
    }
}
