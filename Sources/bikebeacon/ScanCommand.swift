#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Beacon
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Console
import Logging
import Scanning

struct ScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Print iBeacon advertisements heard live.",
        discussion: """
        One line per iBeacon advertising report, in arrival order (a JSON object per line with \
        --json, else a table). Ends after --duration seconds, or on Ctrl-C / SIGTERM; either way \
        discovery is stopped and a summary goes to stderr. Logs (what the scanner is doing and \
        what to fix when bluetoothd or the adapter is missing) also go to stderr.
        """
    )

    enum Backend: String, ExpressibleByArgument, CaseIterable {
        case dbus, hci
    }

    @Option(help: "dbus: BlueZ over D-Bus (default). hci: raw HCI socket (needs CAP_NET_RAW and CAP_NET_ADMIN).")
    var backend: Backend = .dbus

    @Option(help: "Adapter to scan on, e.g. hci0 (default: the first powered one).")
    var adapter: String?

    @Flag(help: "Print one JSON object per line.")
    var json = false

    @Option(help: "Stop after this many seconds (default: run until interrupted).")
    var duration: Double?

    @Option(help: "Restart discovery after this many seconds without any advertisement.")
    var watchdog: Double = 60

    @Flag(help: "Log debug detail (skipped devices, removals from BlueZ's cache).")
    var verbose = false

    /// Longest accepted --duration / --watchdog (about 30 years), so the conversion to a Duration cannot overflow.
    private static let longest: Double = 1e9

    func validate() throws {
        if let duration, !(duration > 0 && duration <= Self.longest) {
            throw ValidationError("--duration must be a positive number of seconds, at most 1000000000")
        }
        guard watchdog >= 1, watchdog <= Self.longest else {
            throw ValidationError("--watchdog must be between 1 and 1000000000 seconds")
        }
    }

    func run() async throws {
        var logger = Logger(label: "bikebeacon.scan") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = verbose ? .debug : .info
        let scanner = try makeScanner(logger: logger)

        if !json { emit(AdvertisementOutput.tableHeader) }
        let failure = await Self.scan(scanner, json: json, duration: duration)
        let counts = await scanner.counts()
        StandardError.line(AdvertisementOutput.summary(counts))
        if let failure {
            StandardError.line("error: \(failure)")
            throw ExitCode.failure
        }
    }

    private func makeScanner(logger: Logger) throws -> any Scanning.Scanner {
        backend.scanner(adapter: adapter, watchdog: watchdog, logger: logger)
    }

    /// Prints reports until the duration ends, a signal arrives, or the scanner fails; returns the failure.
    private static func scan(_ scanner: any Scanning.Scanner, json: Bool, duration: Double?) async -> (any Error)? {
        let failure: (any Error)? = await Interruption.run(duration: duration) {
            do {
                for try await batch in scanner.advertisementBatches() {
                    for advertisement in batch {
                        emit(json ? AdvertisementOutput.json(advertisement) : AdvertisementOutput.tableRow(advertisement))
                    }
                }
                return nil
            } catch {
                return error
            }
        }
        if let hci = scanner as? HCIScanner { await hci.waitUntilStopped() }
        return failure
    }
}

/// Writes a line unbuffered, so a pipe (`| jq`) sees each report as it happens.
private func emit(_ line: String) {
    Terminal.write(line + "\n")
}
