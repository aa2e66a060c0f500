import ArgumentParser
import Server

struct Operators: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Operator accounts: owners who also see the whole network (GET /v1/network/sentinels).",
        subcommands: [Add.self, List.self, Remove.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make an account an operator (it signs up on the dashboard first).")
        @Argument var email: String
        @OptionGroup var database: DatabaseOption

        func run() async throws {
            try await database.with { try await OperatorStore(database: $0).add(email: email, now: ServerOptions.wallClock()) }
            print("'\(email)' is an operator")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the operators' e-mails.")
        @OptionGroup var database: DatabaseOption

        func run() async throws {
            for email in try await database.with({ try await OperatorStore(database: $0).list() }) { print(email) }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Take an operator's rights away; the account stays.")
        @Argument var email: String
        @OptionGroup var database: DatabaseOption

        func run() async throws {
            try await database.with { try await OperatorStore(database: $0).remove(email: email) }
            print("'\(email)' is no longer an operator")
        }
    }
}
