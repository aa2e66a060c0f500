import ArgumentParser
import BikebeaconAPI
import Server

/// The operator's side of "Found a tag?": reports of tags hidden on people, and what to do about them.
struct Abuse: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Reports of tags found hidden on someone: each froze its bike (off the missing list, shown \"under review\" to its owner).",
        subcommands: [List.self, Show.self, Release.self, CloseAccount.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The open reports, newest first (all of them with --all).")
        @Flag(help: "Released and closed reports too.") var all = false
        @OptionGroup var database: DatabaseOption

        func run() async throws {
            let reports = try await database.with { try await AbuseStore(database: $0).list(all: all) }
            print(["reference", "status", "reported", "tag", "owner", "was missing"].joined(separator: "\t"))
            for report in reports {
                print([report.id, report.status, Timestamp.format(milliseconds: report.createdMilliseconds), report.beacon.description,
                       TerminalText.escaped(report.ownerEmail), report.wasMissing ? "yes" : "no"].joined(separator: "\t"))
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
                was missing: \(report.wasMissing ? "yes (it left the missing list when reported)" : "no")
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
            abstract: "Lift the freeze: the owner may mark the bike missing again (it stays off the missing list until they do).")
        @Argument var reference: String
        @OptionGroup var database: DatabaseOption

        func run() async throws {
            let report = try await database.with { db in
                do {
                    return try await AbuseStore(database: db).release(id: reference, now: ServerOptions.wallClock())
                } catch let error as AbuseError {
                    throw ValidationError(error.description)
                }
            }
            print("released report \(report.id): '\(TerminalText.escaped(report.ownerEmail))' may mark the bike missing again")
        }
    }

    struct CloseAccount: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "close-account",
            abstract: "Close the account of the reported bike's owner: its bikes (off the missing list), sightings, share links and sessions are deleted; its open reports are closed.")
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
