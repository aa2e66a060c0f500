import ArgumentParser
import Beacon
import Captures
import Console
import Scanning
#if canImport(Glibc)
import Glibc
#endif

struct RecordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record LE advertising events from a raw HCI scan into a btsnoop file.",
        discussion: """
        Scans like `scan --backend hci` and writes every LE Meta event as received (btsnoop, \
        datalink 1002), so a site can be captured once and replayed anywhere with `bikebeacon replay`. \
        Stops at --duration or on Ctrl-C / SIGTERM, disabling the scan first. Needs CAP_NET_RAW and \
        CAP_NET_ADMIN (or root).
        """
    )

    @Argument(help: "Output file (created or overwritten).")
    var file: String

    @Option(help: "Bluetooth adapter.")
    var adapter = "hci0"

    @Option(help: "Stop after this many seconds.")
    var duration: Double?

    @Flag(help: "Active scan (send scan requests, also record scan responses).")
    var active = false

    struct Outcome: Sendable {
        var createdFile = false
        var packets = 0
        var counts = ScanCounts()
        var error: (any Error)?
    }

    func run() async throws {
        if let duration, !(duration > 0) { throw ValidationError("--duration must be a positive number of seconds") }
        let scanner = HCIScanner(adapter: adapter, active: active, logger: StandardError.logger("bikebeacon.record"))
        let outcome = await Interruption.run(duration: duration) { [file] in
            await Self.record(scanner: scanner, file: file)
        }
        if let error = outcome.error {
            // Do not leave an empty capture behind when the adapter could not be used at all.
            if outcome.createdFile, outcome.packets == 0 { unlink(file) }
            StandardError.line("bikebeacon record: \(error)")
        } else {
            StandardError.line("recorded \(outcome.packets) packets to \(file)")
        }
        StandardError.line(AdvertisementOutput.summary(outcome.counts))
        if outcome.error != nil { throw ExitCode.failure }
    }

    static func record(scanner: HCIScanner, file: String) async -> Outcome {
        var outcome = Outcome()
        var decoder = AdvertisementDecoder()
        do {
            let writer = try BtsnoopFileWriter(path: file)
            outcome.createdFile = true
            for try await packet in scanner.packets() {
                try writer.append(h4: packet.h4, time: packet.time)
                outcome.packets += 1
                decoder.decode(h4: packet.h4[...], time: packet.time) { _ in }
            }
        } catch {
            decoder.countError()
            outcome.error = error
        }
        await scanner.waitUntilStopped()
        outcome.counts = decoder.counts
        return outcome
    }
}
