import ArgumentParser
import BikebeaconAPI
import Server

struct Sightings: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Look up sightings for the police.", subcommands: [Show.self])

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show one sighting as it was heard: the sentinel's name and exact place (a theft report quotes the reference for home sentinels).")
        @Argument(help: "The sighting's reference, as the theft report or the API gives it.") var reference: String
        @OptionGroup var database: DatabaseOption

        func run() async throws {
            guard let found = try await database.with({ try await SightingLookup(database: $0).find(id: reference) }) else {
                throw ValidationError("no sighting with the reference '\(reference)'; copy it whole from the theft report's Place column")
            }
            // The sentinel's name and the bike's are stored text: shown escaped, line by line (`TerminalText`).
            print(found.report.split(separator: "\n", omittingEmptySubsequences: false).map { TerminalText.escaped(String($0)) }.joined(separator: "\n"))
        }
    }
}
