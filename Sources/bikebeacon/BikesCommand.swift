import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Console
import Owners
import Beacon
import Scanning

/// `bikebeacon bikes add|list|remove`: the owner's own bikes in a local JSON file.
struct BikesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bikes",
        abstract: "Keep a list of your bikes and their beacons, for `bikebeacon range --bike NAME`.",
        subcommands: [Add.self, List.self, Remove.self]
    )

    struct Location: ParsableArguments {
        @Option(help: "The bikes file (default: $XDG_CONFIG_HOME/bikebeacon/bikes.json or ~/.config/bikebeacon/bikes.json).")
        var file: String?

        func path() throws -> String { try usage { try BikeChoice.bikesFile(file, environment: ProcessInfo.processInfo.environment) } }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a bike.",
            discussion: """
            Give its tag with --beacon, or hold the tag next to this computer and pass --nearest: \
            the iBeacon heard loudest over --seconds is taken (tags already on your bikes are left \
            out). When two are within a few dB you are asked which one, on stdin.
            """
        )

        @Argument(help: "A name for the bike, e.g. \"red commuter\".")
        var name: String

        @Option(help: "The beacon stuck on it: UUID:MAJOR:MINOR, or pasted as the tag's app or label shows it (UUID, major and minor with any separators, the raw 4c000215… hex, or a link with uuid=, major=, minor=).")
        var beacon: String?

        @Flag(help: "Take the tag heard loudest: hold it next to this computer.")
        var nearest = false

        @Option(help: "With --nearest: how long to listen (a replay: this much of the capture).")
        var seconds: Double = 10

        @Option(help: "With --nearest: dbus, BlueZ over D-Bus (default); hci, raw HCI socket (needs CAP_NET_RAW and CAP_NET_ADMIN).")
        var backend: ScanCommand.Backend = .dbus

        @Option(help: "With --nearest: the adapter to scan on, e.g. hci0 (default: the first powered one).")
        var adapter: String?

        @Option(help: "With --nearest: read a capture file (btsnoop, pcap, pcapng) instead of scanning.")
        var replay: String?

        @OptionGroup var location: Location

        func validate() throws {
            guard (beacon != nil) != nearest else { throw ValidationError("pass either --beacon UUID:MAJOR:MINOR or --nearest") }
            guard seconds >= 1, seconds <= 3600 else { throw ValidationError("--seconds must be between 1 and 3600") }
            if !nearest, replay != nil || adapter != nil { throw ValidationError("--replay and --adapter only apply with --nearest") }
        }

        func run() async throws {
            let path = try location.path()
            var book = try BikesFile.load(path: path)
            let tag: BeaconID
            if let beacon {
                tag = try usage { try BikeChoice.beacon(beacon) }
            } else {
                tag = try await nearestTag(known: book)
            }
            try book.add(Bike(name: name, beacon: tag))
            try BikesFile.save(book, path: path)
            guard let added = book.bikes.last else { return }
            print("added \(added.name) (\(added.beacon)) to \(path)")
        }

        private func nearestTag(known book: BikeBook) async throws -> BeaconID {
            let logger = StandardError.logger("bikebeacon.bikes")
            let scanner: any Scanning.Scanner = replay.map { CaptureScanner(path: $0, logger: logger) }
                ?? backend.scanner(adapter: adapter, watchdog: 60, logger: logger)
            if replay == nil { StandardError.line("listening for \(DecimalText.fixed(seconds, 0)) s: hold the tag next to this computer") }
            let (heard, failure) = await NearestListening.listen(scanner, seconds: seconds, replay: replay != nil)
            if let failure {
                StandardError.line("bikebeacon bikes add: \(failure)")
                throw ExitCode.failure
            }
            let known = Set(book.bikes.map(\.beacon))
            return try usage { try NearestListening.pick(heard.choice(excluding: known), bike: name, known: known.count) }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List your bikes, and your account's after `bikebeacon login`.")

        @OptionGroup var location: Location

        func run() async throws {
            let path = try location.path()
            let book = try BikesFile.load(path: path)
            if book.bikes.isEmpty {
                StandardError.line("no bikes in \(path); add one with: bikebeacon bikes add NAME --beacon UUID:MAJOR:MINOR")
            } else {
                Self.table(book.bikes)
            }
            guard let session = try BikeChoice.session(environment: ProcessInfo.processInfo.environment) else { return }
            do {
                let bikes = try await AccountClient(server: session.server).bikes(token: session.token)
                print("\naccount bikes at \(session.server) (\(session.email)):")
                Self.table(bikes)
            } catch {
                StandardError.line("could not list your account's bikes: \(error)")
            }
        }

        private static func table(_ bikes: [Bike]) {
            let width = max(4, bikes.map(\.name.count).max() ?? 0)
            print("NAME".padded(to: width) + "  BEACON")
            for bike in bikes {
                print(bike.name.padded(to: width) + "  " + bike.beacon.description)
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a bike.")

        @Argument(help: "The bike's name.")
        var name: String

        @OptionGroup var location: Location

        func run() throws {
            let path = try location.path()
            var book = try BikesFile.load(path: path)
            let removed = try book.remove(named: name)
            try BikesFile.save(book, path: path)
            print("removed \(removed.name) (\(removed.beacon)) from \(path)")
        }
    }
}
