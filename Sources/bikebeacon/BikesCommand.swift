import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Console
import Owners

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

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a bike.")

        @Argument(help: "A name for the bike, e.g. \"red commuter\".")
        var name: String

        @Option(help: "The beacon stuck on it: UUID:MAJOR:MINOR, or pasted as the tag's app or label shows it (UUID, major and minor with any separators, the raw 4c000215… hex, or a link with uuid=, major=, minor=).")
        var beacon: String

        @OptionGroup var location: Location

        func run() throws {
            let path = try location.path()
            var book = try BikesFile.load(path: path)
            try book.add(Bike(name: name, beacon: try usage { try BikeChoice.beacon(beacon) }))
            try BikesFile.save(book, path: path)
            guard let added = book.bikes.last else { return }
            print("added \(added.name) (\(added.beacon)) to \(path)")
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
