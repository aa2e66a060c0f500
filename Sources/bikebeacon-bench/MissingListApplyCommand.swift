import ArgumentParser
import Benchmarks
import BikebeaconAPI
import Foundation
import NIOCore
import Registry
import Sentinel

/// What a sentinel pays to take the server's missing list: unpacking and decoding the answer as
/// `HTTPMissingListSource` does (`MissingListWire`) and replacing its `MissingRegistry` (a full list), or
/// applying a delta to it. `scripts/bench-server --city` saves a city's full list and a delta from the
/// server it seeded, plain and gzipped, and runs this on each in a process of its own (peak RSS is per process).
struct MissingListApplyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "missing-list",
        abstract: "Decode and apply a saved GET /v1/missing answer (full list, then a delta on it): time and memory.")

    @Option(help: "A full list as the server sent it (MissingList JSON, or gzipped with --gzip).") var full: String
    @Option(help: "A delta on that list's version (MissingDelta JSON, or gzipped with --gzip).") var delta: String
    @Flag(help: "The files are the server's gzipped answers (Content-Encoding: gzip): unpacked as the sentinel does.") var gzip = false
    @Option(help: "Timed repetitions; the median is printed.") var repeats = 20

    func run() throws {
        let before = ProcessMemory.residentBytes ?? 0
        let fullBody = ByteBuffer(bytes: try Data(contentsOf: URL(fileURLWithPath: full)))
        let deltaBody = ByteBuffer(bytes: try Data(contentsOf: URL(fileURLWithPath: delta)))
        let encoding = gzip ? "gzip" : nil
        var registry = MissingRegistry()
        let fullSeconds = try median {
            guard case let .full(version, bikes, _) = try MissingListWire.decode(fullBody, contentEncoding: encoding, etag: nil)
            else { throw ValidationError("\(full) is not a full list") }
            registry = MissingRegistry()
            registry.replace(version: version, bikes: bikes)
        }
        let afterFull = ProcessMemory.peakResidentBytes ?? 0
        let held = registry
        func change() throws -> MissingListDelta {
            guard case let .delta(change, _) = try MissingListWire.decode(deltaBody, contentEncoding: encoding, etag: nil)
            else { throw ValidationError("\(delta) is not a delta") }
            return change
        }
        let deltaSeconds = try median {
            var copy = held
            try copy.apply(try change())
            blackHole(copy.count)
        }
        var applied = held
        let applying = try change()
        try applied.apply(applying)
        let mb = { (bytes: Int) in String(format: "%.1f", Double(bytes) / 1_048_576) }
        let form = gzip ? " (gzip)" : ""
        print(Table.render(
            header: ["", "bytes", "unpack + decode + apply ms (median of \(repeats))", "bikes after", "peak RSS MB (process)"],
            rows: [
                ["full list\(form)", "\(fullBody.readableBytes)", String(format: "%.2f", fullSeconds * 1000), "\(held.count)", mb(afterFull)],
                ["delta\(form) (+\(applying.added.count) −\(applying.removed.count))", "\(deltaBody.readableBytes)",
                 String(format: "%.3f", deltaSeconds * 1000), "\(applied.count)", mb(ProcessMemory.peakResidentBytes ?? 0)],
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
