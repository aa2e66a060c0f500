import ArgumentParser
import Benchmarks

struct RegistryBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "registry",
        abstract: "Missing-registry build time, lookup latency and memory, against Swift's Dictionary."
    )

    @Option(help: "Number of missing bikes.")
    var entries = 1_000_000

    func run() throws {
        let r = RegistryBench.run(entries: entries)
        let mb = { (bytes: Int) in Double(bytes) / 1_048_576 }
        print("bench registry: \(r.entries) entries (targets: build < 1 s, lookup < 100 ns, memory < 64 MB)")
        print(Table.render(
            header: ["", "MissingRegistry", "Dictionary (baseline)", "ratio"],
            rows: [
                ["build s", fmt(r.buildSeconds, 3), fmt(r.baselineBuildSeconds, 3), fmt(r.buildSeconds / r.baselineBuildSeconds, 2)],
                ["contains, hit ns", fmt(r.hitNanoseconds, 1), fmt(r.baselineHitNanoseconds, 1), fmt(r.hitNanoseconds / r.baselineHitNanoseconds, 2)],
                ["contains, miss ns", fmt(r.missNanoseconds, 1), "", ""],
                ["match with description ns", fmt(r.matchNanoseconds, 1), "", ""],
                ["random read ns (floor)", fmt(r.memoryFloorNanoseconds, 1), "", fmt(r.hitNanoseconds / r.memoryFloorNanoseconds, 2)],
                ["memory MB", fmt(mb(r.memoryBytes), 1), fmt(mb(r.baselineMemoryBytes), 1), fmt(Double(r.memoryBytes) / Double(max(r.baselineMemoryBytes, 1)), 2)],
            ]
        ))
    }
}
