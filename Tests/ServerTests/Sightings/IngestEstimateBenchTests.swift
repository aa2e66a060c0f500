import Testing
import TestSupport

/// `bikebeacon-bench ingest-estimate` (the estimate's cost on ingest, #44) runs its two servers to the end on a small
/// city: every batch accepted by both (a refused one ends the run with its status), one row a level, each with its uncertainty.
@Suite struct IngestEstimateBenchTests {
    @Test func smallCityRunsToTheEnd() async throws {
        let result = try await run("bikebeacon-bench", ["ingest-estimate", "--bikes", "20", "--sentinels", "5", "--level-seconds", "10", "--levels", "2"])
        #expect(result.status == 0, "\(result.stderr)")
        let rows = result.stdout.split(separator: "\n").filter { $0.hasSuffix("% of a core |") }
        #expect(rows.count == 2, "\(result.stdout)")
        #expect(rows.first?.hasPrefix("| 10 s | 50.0 |") == true, "\(result.stdout)")
        // Two chunks of 50 batches a level: each figure has its uncertainty.
        for row in rows {
            let spread = row.split(separator: "±").last?.split(separator: " ").first.flatMap { Double($0) }
            #expect(spread.map { $0 >= 0 } == true, "\(row)")
        }
    }

    @Test func refusesAnEmptyBatch() async throws {
        let result = try await run("bikebeacon-bench", ["ingest-estimate", "--batch", "0"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("--batch 1…500"), "\(result.stderr)")
    }
}
