import ArgumentParser
import Beacon
import Console
import Scanning

struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Print the iBeacon reports in a btsnoop, pcap or pcapng capture.",
        discussion: """
        The format is detected from the file's content. One line per iBeacon advertising report, in \
        capture order; a summary goes to stderr. A damaged file prints everything before the damage, \
        then names the byte offset and exits 1.
        """
    )

    @Argument(help: "Capture file (btsnoop, pcap or pcapng with Bluetooth HCI H4 packets).")
    var file: String

    @Flag(help: "One JSON object per line instead of a table.")
    var json = false

    @Flag(help: "Wait between reports as long as the capture did.")
    var realtime = false

    func run() async throws {
        let scanner = CaptureScanner(path: file, logger: StandardError.logger("bikebeacon.replay"))
        if !json { print(AdvertisementOutput.tableHeader) }
        var previous: Double?
        var failure: (any Error)?
        do {
            for try await batch in scanner.advertisementBatches() {
                for advertisement in batch {
                    if realtime, let previous, advertisement.time > previous {
                        try await Task.sleep(for: .seconds(advertisement.time - previous))
                    }
                    previous = advertisement.time
                    print(json ? AdvertisementOutput.json(advertisement) : AdvertisementOutput.tableRow(advertisement))
                }
            }
        } catch {
            failure = error
        }
        StandardError.line(AdvertisementOutput.summary(await scanner.counts()))
        if let failure {
            StandardError.line("bikebeacon replay: \(failure)")
            throw ExitCode.failure
        }
    }
}
