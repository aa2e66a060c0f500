import ArgumentParser
import Benchmarks
import BikebeaconAPI
import Foundation
import Registry

/// What a sentinel pays to take the server's missing list: decoding the JSON as `MissingListWire` does and
/// replacing its `MissingRegistry` (a full list), or applying a delta to it. `scripts/bench-server --city`
/// saves a city's full list and a delta from the server it seeded and runs this on them.
struct MissingListApplyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "missing-list",
        abstract: "Decode and apply a saved GET /v1/missing answer (full list, then a delta on it): time and memory.")

    @Option(help: "A full list as the server sent it (MissingList JSON).") var full: String
    @Option(help: "A delta on that list's version (MissingDelta JSON).") var delta: String
    @Option(help: "Timed repetitions; the median is printed.") var repeats = 20

    func run() throws {
        let before = ProcessMemory.residentBytes ?? 0
        let fullData = try Data(contentsOf: URL(fileURLWithPath: full)), deltaData = try Data(contentsOf: URL(fileURLWithPath: delta))
        var registry = MissingRegistry()
        let fullSeconds = try median {
            let list = try JSONDecoder().decode(MissingList.self, from: fullData)
            registry = MissingRegistry()
            registry.replace(version: list.version, bikes: list.beacons.map(\.bike))
        }
        let afterFull = ProcessMemory.peakResidentBytes ?? 0
        let held = registry
        let deltaSeconds = try median {
            var copy = held
            try copy.apply(try JSONDecoder().decode(MissingDelta.self, from: deltaData).delta)
            blackHole(copy.count)
        }
        var applied = held
        let change = try JSONDecoder().decode(MissingDelta.self, from: deltaData).delta
        try applied.apply(change)
        let mb = { (bytes: Int) in String(format: "%.1f", Double(bytes) / 1_048_576) }
        print(Table.render(
            header: ["", "bytes", "decode + apply ms (median of \(repeats))", "bikes after", "peak RSS MB (process)"],
            rows: [
                ["full list", "\(fullData.count)", String(format: "%.2f", fullSeconds * 1000), "\(held.count)", mb(afterFull)],
                ["delta (+\(change.added.count) −\(change.removed.count))", "\(deltaData.count)", String(format: "%.3f", deltaSeconds * 1000),
                 "\(applied.count)", mb(ProcessMemory.peakResidentBytes ?? 0)],
            ]))
        print("RSS before reading the list: \(mb(before)) MB; the list held adds \(mb(max(0, (ProcessMemory.residentBytes ?? 0) - before))) MB")
    }

    private func median(_ body: () throws -> Void) throws -> Double {
        var times: [Double] = []
        for _ in 0..<repeats {
            let watch = Stopwatch()
            try body()
            times.append(watch.seconds)
        }
        return times.sorted()[times.count / 2]
    }
}
