import ArgumentParser
import Benchmarks
import Foundation

/// `IngestEstimateBench`: the estimate's cost at ingest, as a share of a core at the city's sighting rate.
struct IngestEstimateBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest-estimate",
        abstract: "CPU per sighting ingested with and without its bike's position estimate in the event (#44), in one process.",
        discussion: """
        Two servers in this process (HummingbirdTesting's router, no sockets), each on its own SQLite file seeded \
        alike (--bikes owners with a missing bike each, --sentinels sentinels heartbeating once a minute), one with \
        the estimate on ingest and one without, take the same batches on one injected clock: --rate sightings a \
        second in batches of --batch, each of a random bike from a random sentinel, alternating in chunks. Each level \
        lasts --level-seconds of that clock (by default, each bike's 300 s window is full from the second level on). CPU is this process's \
        user plus system seconds (getrusage) over the POSTs; the difference, at --rate, is the share of a core the \
        estimate costs (#44's target: 2 %).
        """)

    @Option var sentinels = 100
    @Option var bikes = 1_000
    @Option var rate = 100.0
    @Option var batch = 10
    @Option var levelSeconds = 300.0
    @Option var levels = 3

    func validate() throws {
        guard (1...10_000).contains(sentinels), (1...65_535).contains(bikes), rate > 0, rate <= 10_000, (1...500).contains(batch),
              levelSeconds >= 1, (1...20).contains(levels)
        else { throw ValidationError("--sentinels 1…10000, --bikes 1…65535, --rate 0…10000, --batch 1…500, --level-seconds ≥ 1, --levels 1…20") }
    }

    func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bikebeacon-bench-estimate-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let setup = IngestEstimateBench.Setup(sentinels: sentinels, bikes: bikes, rate: rate, batch: batch, levelSeconds: levelSeconds, levels: levels)
        print("bench ingest-estimate: SQLite, \(sentinels) sentinels, \(bikes) missing bikes, \(fmt(rate, 0)) sightings/s in batches of \(batch), "
            + "\(levels) levels of \(fmt(levelSeconds, 0)) s (injected clock)")
        let results = try await IngestEstimateBench(setup: setup).run(directory: directory)
        print("| after | sightings in a bike's window | CPU µs a sighting, with the estimate | without | ratio "
            + "| the estimate at \(fmt(rate, 0)) sightings/s, ± twice the standard error of its chunks |")
        print("| --- | --- | --- | --- | --- | --- |")
        for level in results {
            let with = level.withEstimate / Double(level.sightings) * 1e6, without = level.without / Double(level.sightings) * 1e6
            let spread = level.uncertainty.map { " ± " + fmt($0 * rate * 100, 2) } ?? ""
            print("| \(fmt(level.upTo, 0)) s | \(fmt(level.perWindow, 1)) | \(fmt(with, 0)) | \(fmt(without, 0)) | \(fmt(with / without, 2)) "
                + "| \(fmt((with - without) * rate / 1e4, 2))\(spread) % of a core |")
        }
    }
}
