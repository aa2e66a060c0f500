import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Console
import Owners
#if canImport(Glibc)
import Glibc
#endif

/// `bikebeacon login URL`: logs in to the owner's account so `range --bike NAME` also knows the
/// account's bikes. The token is stored in the config directory, readable by this user only.
struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Log in to your bikebeacon account, so --bike NAME also finds the account's bikes."
    )

    @Argument(help: "The server, e.g. https://bikes.example.org")
    var url: String

    @Option(help: "Your account's email (default: asked for).")
    var email: String?

    @Flag(name: .customLong("password-stdin"), help: "Read the password from the first line of stdin instead of asking.")
    var passwordStdin = false

    func run() async throws {
        let client = try AccountClient(server: url)
        guard let sessionPath = ConfigDirectory.sessionFile(environment: ProcessInfo.processInfo.environment) else {
            throw ValidationError("cannot find the config directory: set HOME or XDG_CONFIG_HOME")
        }
        let address = try email ?? Self.ask("Email: ", echo: true)
        let password = passwordStdin ? (readLine(strippingNewline: true) ?? "") : try Self.ask("Password: ", echo: false)
        let token = try await client.logIn(email: address, password: password)
        try SessionFile.save(AccountSession(server: client.server, email: address, token: token), path: sessionPath)
        print("logged in to \(client.server) as \(address); session saved in \(sessionPath)")
    }

    /// Asks on the terminal; with `echo` off the typed password is not shown.
    private static func ask(_ prompt: String, echo: Bool) throws -> String {
        guard isatty(STDIN_FILENO) == 1 else {
            throw ValidationError("stdin is not a terminal: pass --email and --password-stdin")
        }
        Terminal.write(prompt, to: STDERR_FILENO)
        var saved = termios()
        let hidden = !echo && tcgetattr(STDIN_FILENO, &saved) == 0
        if hidden {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(STDIN_FILENO, TCSANOW, &quiet)
        }
        defer {
            if hidden {
                tcsetattr(STDIN_FILENO, TCSANOW, &saved)
                Terminal.write("\n", to: STDERR_FILENO)
            }
        }
        return readLine(strippingNewline: true) ?? ""
    }
}
