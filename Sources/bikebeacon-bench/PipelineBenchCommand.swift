import ArgumentParser
import Benchmarks

struct PipelineBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pipeline",
        abstract: "Advertisements through decode → match → estimate → monitor, and memory over time with turnover."
    )

    @Option(help: "Advertisements per street size.")
    var advertisements = 1_000_000

    @Option(help: "Simulated minutes of the memory run.")
    var minutes = 30

    func run() throws {
        print("bench pipeline: every beacon estimated and monitored (worst case), 1 Hz, 30 % loss; baseline = decoding alone, same advertisements")
        var rows: [[String]] = []
        for beacons in [1_000, 10_000, 100_000] {
            let r = PipelineBench.throughput(beacons: beacons, advertisements: advertisements)
            let perAd = r.seconds * 1e9 / Double(r.advertisements)
            let decodePerAd = r.decodeOnlySeconds * 1e9 / Double(r.advertisements)
            rows.append([String(beacons), String(r.advertisements), fmt(Double(r.advertisements) / r.seconds, 0),
                         fmt(perAd, 0), fmt(decodePerAd, 0), fmt(perAd / decodePerAd, 2), String(r.peakTracked),
                         fmt(Double(r.peakResidentBytes) / 1_048_576, 1)])
        }
        print(Table.render(header: ["beacons", "ads", "ads/s", "ns/ad", "decode-only ns/ad", "ratio", "tracked", "peak RSS MB"], rows: rows))

        let active = 10_000, churn = 100
        print("\nmemory over time: \(active) beacons in range at once, \(churn) leave and \(churn) arrive every second (forget after 300 s)")
        let samples = PipelineBench.memoryOverTime(active: active, churnPerSecond: churn, minutes: minutes, sampleEveryMinutes: 5)
        print(Table.render(
            header: ["minute", "distinct beacons so far", "tracked", "RSS MB"],
            rows: samples.map { [fmt($0.simulatedMinutes, 0), String($0.distinctBeaconsSoFar), String($0.tracked), fmt(Double($0.residentBytes) / 1_048_576, 1)] }
        ))
    }
}
