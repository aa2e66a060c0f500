import ArgumentParser
import BikebeaconAPI
import Server

/// The operator's side of "Found a tag?": reports of tags hidden on people, and what to do about them.
struct Abuse: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Reports of tags found hidden on someone: each seals its bike (sightings stored, shown to nobody through its owner) until released or closed.",
        subcommands: [List.self, Show.self, Release.self, Close.self, Seal.self, Dismiss.self, Purge.self, CloseAccount.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The open and held reports, newest first (all of them with --all).")
        @Flag(help: "Released and closed reports too.") var all = false
        @OptionGroup var database: DatabaseOption

        func run() async throws {
            let reports = try await database.with { try await AbuseStore(database: $0).list(all: all) }
            print(["reference", "status", "reported", "tag", "owner", "was missing", "case"].joined(separator: "\t"))
            for report in reports {
                print([report.id, report.status, Timestamp.format(milliseconds: report.createdMilliseconds), report.beacon.description,
                       TerminalText.escaped(report.ownerEmail), report.wasMissing ? "yes" : "no", report.caseID ?? "-"].joined(separator: "\t"))
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "One report: the tag, the bike and its owner, the reporter's words and contact.")
        @Argument(help: "The report's reference (ar_…).") var reference: String
        @OptionGroup var database: DatabaseOption

        func run() async throws {
            guard let report = try await database.with({ try await AbuseStore(database: $0).find(id: reference) }) else {
                throw ValidationError("no report '\(reference)'; `bikebeacon-server abuse list --all` shows every report")
            }
            let resolved = report.resolvedMilliseconds.map { " (\(Timestamp.format(milliseconds: $0)))" } ?? ""
            // Stored text is shown escaped (`TerminalText`): a CR or a bidi override in it would redraw the terminal.
            let shown = TerminalText.escaped
            print("""
                reference: \(report.id)
                status: \(report.status)\(resolved)
                reported: \(Timestamp.format(milliseconds: report.createdMilliseconds)) from \(shown(report.client))
                tag: \(report.beacon)
                bike: \(report.bikeID)
                owner: \(shown(report.ownerEmail))
                case: \(report.caseID.map { $0 == report.id ? "\($0) (this report sealed the bike)" : $0 } ?? "none (\(report.status == "held" ? "held by the breaker: `abuse seal` or `abuse dismiss`" : "sealed nothing"))")\(report.purgedMilliseconds.map { "\nsealed sightings purged: \(Timestamp.format(milliseconds: $0))" } ?? "")
                was missing: \(report.wasMissing ? "yes" : "no")
                contact: \(report.contact.isEmpty ? "(none given)" : shown(report.contact))
                message:
                """)
            for line in (report.message.isEmpty ? "(none)" : report.message).split(separator: "\n", omittingEmptySubsequences: false) {
                print("    \(shown(String(line)))")
            }
        }
    }

    struct Release: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Release the report's case: the owner sees the sightings sealed during it (marked held for review), share links open again; the owner is told.")
        @Argument var reference: String
        @OptionGroup var database: DatabaseOption

        func run() async throws {
            let report = try await Abuse.run(database) { try await $0.end(id: reference, closing: false, now: ServerOptions.wallClock()) }
            print("released case \(report.caseID ?? report.id): '\(TerminalText.escaped(report.ownerEmail))' sees its sealed sightings, marked held for review, and was told")
        }
    }

    struct Close: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Close the report's case as genuine: sealed recording ends, the bike leaves the missing list for good, its sealed sightings are kept for the police (serve --sealed-retention-days); the owner is told.")
        @Argument var reference: String
        @OptionGroup var database: DatabaseOption

        func run() async throws {
            let report = try await Abuse.run(database) { try await $0.end(id: reference, closing: true, now: ServerOptions.wallClock()) }
            print("closed case \(report.caseID ?? report.id): the bike left the missing list; its sealed sightings stay for the police (`sightings show ID`, `abuse purge \(report.id)`)")
        }
    }

    struct Seal: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Seal the bike of a report the breaker held (serve --report-breaker-per-hour): as if it had come in now; the owner is told.")
        @Argument var reference: String
        @OptionGroup var database: DatabaseOption

        func run() async throws {
            let report = try await Abuse.run(database) { try await $0.seal(id: reference, now: ServerOptions.wallClock()) }
            print("report \(report.id) is open: the bike is sealed under case \(report.caseID ?? report.id)")
        }
    }

    struct Dismiss: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Dismiss a report the breaker held: it never sealed anything.")
        @Argument var reference: String
        @OptionGroup var database: DatabaseOption

        func run() async throws {
            let report = try await Abuse.run(database) { try await $0.dismiss(id: reference, now: ServerOptions.wallClock()) }
            print("dismissed report \(report.id)")
        }
    }

    struct Purge: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a closed case's sealed sightings now, before serve --sealed-retention-days does.")
        @Argument var reference: String
        @OptionGroup var database: DatabaseOption

        func run() async throws {
            let (report, deleted) = try await Abuse.run(database) { try await $0.purge(id: reference, now: ServerOptions.wallClock()) }
            print("purged case \(report.caseID ?? report.id): \(deleted) sealed sightings deleted")
        }
    }

    /// Runs one of the store's commands, an `AbuseError` as the operator's usage error.
    static func run<T: Sendable>(_ database: DatabaseOption, _ body: @escaping @Sendable (AbuseStore) async throws -> T) async throws -> T {
        try await database.with { db in
            do {
                return try await body(AbuseStore(database: db))
            } catch let error as AbuseError {
                throw ValidationError(error.description)
            }
        }
    }

    struct CloseAccount: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "close-account",
            abstract: "Close the account of the reported bike's owner: its bikes (off the missing list), share links and sessions are deleted; its open reports are closed; sealed sightings are kept for the police.")
        @Argument var reference: String
        @OptionGroup var database: DatabaseOption

        func run() async throws {
            let email = try await database.with { db in
                do {
                    return try await AbuseStore(database: db).closeAccount(reportID: reference, now: ServerOptions.wallClock())
                } catch let error as AbuseError {
                    throw ValidationError(error.description)
                }
            }
            print("closed the account '\(TerminalText.escaped(email))': its bikes left the missing list and its sessions ended")
        }
    }
}
