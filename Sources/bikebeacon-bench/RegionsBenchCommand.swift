import ArgumentParser
import Benchmarks
import Foundation

struct RegionsBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "regions",
        abstract: "Region enter/exit latency and spurious transitions on the philotuxo tracks, against raw-distance baselines.",
        discussion: """
        Each (track, sensor) stream of philotuxo/trk_with_distance.csv is one beacon at one \
        sentinel; inside = within R m of the sensor by dist3d_m. R = 3 uses a region requiring \
        zone near; R = 2 a region with a 2 m distance limit. Latencies are seconds from the true \
        transition (negative = early); a prediction matches a true transition of its kind from \
        5 s before to 30 s after it; transitions in the last 15 s of a stream are not scored.
        """
    )

    @Option(help: "Folder holding philotuxo/ (the shared RSSI data).")
    var data = BikebeaconBench.sharedRSSI

    @Option(parsing: .unconditional, help: "Measured power for every stream, dBm at 1 m (iBeacon's usual default; no per-stream tuning).")
    var measuredPower = -59.0

    func run() throws {
        let streams: [PhilotuxoTracks.Stream]
        do {
            streams = try PhilotuxoTracks.load(dataDirectory: URL(fileURLWithPath: data))
        } catch {
            throw ValidationError("cannot read \(data)/philotuxo/\(PhilotuxoTracks.fileName): \(error). Pass --data with the folder holding philotuxo/.")
        }
        for radius in [2.0, 3.0] {
            let result = RegionBench.run(streams: streams, radius: radius, measuredPower: measuredPower)
            print("bench regions: inside = within \(fmt(radius, 0)) m, \(result.streams) streams, measured power \(fmt(measuredPower, 0)) dBm")
            print(Self.table(result))
            if let ours = result.scores.first?.score {
                let ratios = result.scores.dropFirst().map { "\($0.method.rawValue) \(fmt(Double(ours.errors) / Double(max(1, $0.score.errors)), 2))" }
                print("errors of estimator + monitor as a ratio of each baseline's: " + ratios.joined(separator: ", "))
                print(Self.verdict(result))
            }
            print("")
        }
    }

    /// Issue 10's targets: fewer errors than ESPresense's occupancy rule, median exit within 15 s.
    static func verdict(_ result: RegionBench.Result) -> String {
        guard let ours = result.scores.first(where: { $0.method == .estimatorMonitor })?.score,
              let espresense = result.scores.first(where: { $0.method == .espresense })?.score else { return "" }
        let exit = RegionBench.percentile(ours.exitLatencies, 50)
        let exitMet = exit.map { $0 <= 15 } ?? false
        return "target: errors \(ours.errors < espresense.errors ? "met" : "MISSED") (\(ours.errors) vs ESPresense occupancy \(espresense.errors)); "
            + "median exit \(exitMet ? "met" : "MISSED") (\(exit.map { fmt($0, 1) } ?? "-") s, target ≤ 15 s)"
    }

    static func table(_ result: RegionBench.Result) -> String {
        let seconds = { (values: [Double], p: Double) in RegionBench.percentile(values, p).map { fmt($0, 1) } ?? "-" }
        let metrics: [(String, (RegionBench.Score) -> String)] = [
            ("true enters", { String($0.truthEnters) }),
            ("enter latency median s", { seconds($0.enterLatencies, 50) }),
            ("enter latency p90 s", { seconds($0.enterLatencies, 90) }),
            ("missed enters", { String($0.missedEnters) }),
            ("true exits", { String($0.truthExits) }),
            ("exit latency median s", { seconds($0.exitLatencies, 50) }),
            ("exit latency p90 s", { seconds($0.exitLatencies, 90) }),
            ("missed exits", { String($0.missedExits) }),
            ("spurious enters", { String($0.spuriousEnters) }),
            ("spurious exits", { String($0.spuriousExits) }),
            ("errors (missed + spurious)", { String($0.errors) }),
        ]
        return Table.render(
            header: [""] + result.scores.map { $0.method.rawValue },
            rows: metrics.map { name, value in [name] + result.scores.map { value($0.score) } }
        )
    }
}
