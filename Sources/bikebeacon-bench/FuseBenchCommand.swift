import ArgumentParser
import Benchmarks
import Foundation
import Locating

struct FuseBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fuse",
        abstract: "City-scale fusing: CPU per second of sightings, against the loudest-sentinel pin in the same run (#44 goal 5).",
        discussion: """
        A synthetic city: --sentinels fixed sentinels on a square grid --spacing metres apart, --bikes \
        missing bikes parked among them, --rate sightings a second for --seconds seconds, each by one of \
        the four sentinels around its bike with 6 dB of shadowing. Each sighting fuses its bike's \
        sightings of the last 5 minutes (SightingFusion, as the server does for each sighting that \
        notifies). CPU is user+system seconds from getrusage; the baseline replays the same windows \
        and takes the loudest sentinel's place. The database query that gathers a window is not in it. \
        --ridden SPEED rides every bike instead, at SPEED m/s in a straight line (turning back at the \
        city's edge), scores each estimate against where the bike is then, and also fuses keeping the \
        whole window, as if bikes never moved. --handover SECONDS parks every bike but has it heard by \
        one of its four sentinels at a time, the next round taking over every SECONDS (a sentinel falling \
        silent and its neighbour hearing on): the case most likely to pass for a ride. --exponent E has the \
        levels fall as a path-loss exponent of E (a street's 2 or more) where the uncalibrated sentinels' \
        model assumes 1.5. --beyond METRES parks every bike that far south of the city's edge, heard by the \
        four sentinels nearest it, all on one side. Then the same fusion on real rows: philotuxo's tracks (--data), each fix's \
        levels as its 12 receivers' sightings, uncalibrated, scored against the camera's ground truth.
        """
    )

    @Option(help: "Seconds of input.") var seconds = 60
    @Option(help: "Sightings a second.") var rate = 100
    @Option(help: "Fixed sentinels in the city.") var sentinels = 10_000
    @Option(help: "Missing bikes the sightings are of.") var bikes = 1_000
    @Option(help: "Metres between neighbouring sentinels.") var spacing = 100.0
    @Option(help: "Ride every bike at this many m/s instead of parking it.") var ridden: Double?
    @Option(help: "Have a parked bike heard by one of its four sentinels at a time, the next taking over after this many seconds.")
    var handover: Double?
    @Option(help: "How steeply the levels fall with distance, as a path-loss exponent (the sentinels' model assumes 1.5).")
    var exponent = LocatorConfiguration().defaultExponent
    @Option(help: "Park every bike this many metres beyond the city's edge, heard by the four sentinels nearest it.")
    var beyond: Double?
    @Option(help: "Folder holding philotuxo/ (the shared RSSI data), for the fusion on real rows.")
    var data = BikebeaconBench.sharedRSSI

    func validate() throws {
        guard seconds > 0, rate > 0, sentinels > 0, bikes > 0, spacing > 0, (ridden ?? 1) > 0, (handover ?? 1) > 0, exponent > 0, (beyond ?? 0) >= 0 else {
            throw ValidationError("--seconds, --rate, --sentinels, --bikes, --spacing, --ridden, --handover and --exponent must be positive, --beyond not negative")
        }
        guard ridden == nil || beyond == nil else { throw ValidationError("--beyond is for parked bikes: give it or --ridden, not both") }
        guard ridden == nil || handover == nil else { throw ValidationError("--handover is for parked bikes: give it or --ridden, not both") }
    }

    func run() throws {
        let result = FusionBench.run(.init(seconds: seconds, sightingsPerSecond: rate, sentinels: sentinels, bikes: bikes, spacing: spacing,
                                           riddenSpeed: ridden, handover: handover, exponent: exponent, beyond: beyond))
        print("bench fuse: \(sentinels) sentinels \(fmt(spacing, 0)) m apart, \(bikes) bikes, \(rate) sightings/s for \(seconds) s; "
              + "\(result.estimates) estimates, \(fmt(result.meanWindow, 1)) sightings in a window on average")
        print("CPU (getrusage, this run): fusing \(fmt(result.fuseCPU, 3)) s = \(fmt(result.coreShare * 100, 2)) % of a core; "
              + "baseline (loudest sentinel) \(fmt(result.baselineCPU, 3)) s = \(fmt(result.baselineCoreShare * 100, 2)) %; "
              + "\(fmt(result.estimates > 0 ? result.fuseCPU / Double(result.estimates) * 1e6 : .nan, 1)) µs an estimate, slowest \(fmt(result.slowest * 1e3, 3)) ms of thread CPU "
              + "(\(fmt(result.slowestOwn * 1e3, 3)) ms its own: the run timed again, each estimate's lesser time)")
        let runs = 10
        let largest = FusionBench.largestWindow(runs: runs)
        print("the largest window the server fuses, \(SightingFusion.mostSightings) sightings: \(fmt(largest.roaming * 1e3, 3)) ms of thread CPU "
              + "when each is a bus's own fix, \(fmt(largest.fixed * 1e3, 3)) ms from as many fixed sentinels (the least of \(runs) runs each)")
        print("error against the bikes' places: median \(fmt(result.medianError, 1)) m fused, \(fmt(result.baselineMedianError, 1)) m loudest sentinel; "
              + "within radius90 \(fmt(result.inside90 * 100, 0)) %, radius50 \(fmt(result.inside50 * 100, 0)) %; "
              + "said to be on the move \(fmt(result.onTheMove * 100, 1)) %")
        if let whole = result.wholeWindow {
            print("keeping the whole window, as if bikes never moved: median \(fmt(whole.medianError, 1)) m; "
                  + "within radius90 \(fmt(whole.inside90 * 100, 0)) %, radius50 \(fmt(whole.inside50 * 100, 0)) %")
        }
        printRoom()
        print("target: at most 2 % of a core (\(result.coreShare <= 0.02 ? "met" : "MISSED")), one estimate at most 1 ms of its own, the largest window's too "
              + "(\(max(result.slowestOwn, largest.roaming, largest.fixed) <= 0.001 ? "met" : "MISSED"))")
    }

    /// The fusion on philotuxo's rows, a track a line; without the data, a line saying so.
    func printRoom() {
        guard let dataset = try? PhilotuxoPositions.load(dataDirectory: URL(fileURLWithPath: data)) else {
            print("the fusion on real rows: skipped, cannot read \(data)/philotuxo/\(PhilotuxoTracks.fileName) (pass --data with the folder holding philotuxo/)")
            return
        }
        print("the fusion on real rows, philotuxo's \(dataset.sensors.count) receivers as uncalibrated fixed sentinels (error in metres; share within the radius):")
        for track in FusionBench.room(dataset) {
            print("  \(track.name): \(track.estimates) estimates, median \(fmt(track.medianError, 2)) fused, \(fmt(track.loudestMedianError, 2)) loudest receiver; "
                  + "within radius90 \(fmt(track.inside90 * 100, 0)) %, radius50 \(fmt(track.inside50 * 100, 0)) %")
        }
    }
}
