import ArgumentParser
import BikebeaconAPI
import Server

/// `bikebeacon-server reads`: the record for an abuse case, as the operator hands it on.
struct Reads: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Who read a bike's sightings, and under which police reference it was marked missing, for an abuse case.",
        discussion: """
            Prints, for one bike or every bike of one owner, each time it was marked missing (with the police \
            report's reference, if one was given; one that let a new tag past the hold is marked) and every read of its \
            place: the owner's API, dashboard and exports, the account export, the bike's coverage, the live event stream \
            (each missing bike when it opens, and each sighting it delivers), share links' pages and API, the theft report, \
            with the reader, the route and the client address (at most one row per reader, bike and route a minute; kept \
            180 days). Stored text is shown escaped (control and bidi characters as \\u{…}). Deleted bikes and accounts \
            still show by their ids.
            """)

    @Argument(help: "A bike's id, or its owner's e-mail address (or account id).") var subject: String
    @Option(help: "Only what happened at or after this time (RFC 3339, e.g. 2026-11-01T00:00:00Z).") var since: String?
    @Flag(help: "Print the reads as CSV (time, bike, reader, route, client, policeReference) instead of text.") var csv = false
    @OptionGroup var database: DatabaseOption

    func validate() throws {
        if let since, Timestamp.parse(since) == nil {
            throw ValidationError("--since '\(since)' is not an RFC 3339 time; write it as 2026-11-01T00:00:00Z")
        }
    }

    func run() async throws {
        let from = since.flatMap(Timestamp.parse) ?? 0
        guard let found = try await database.with({ try await ReadLogExport.load(database: $0, subject: subject, since: from) }) else {
            throw ValidationError("no bike, owner or read on record matches '\(subject)'; give a bike's id or its owner's e-mail address")
        }
        print(csv ? found.csv : found.text, terminator: csv ? "" : "\n")
    }
}
