import Testing
import TestSupport

/// `serve`'s email flags are checked before anything starts, with a message that says what to fix.
@Suite struct MailCommandLineTests {
    @Test func badMailFlagsAreRefused() async throws {
        let cases: [([String], String)] = [
            (["--smtp-url", "http://mail.example.org"], "neither smtp nor smtps"),
            (["--smtp-url", "smtp://user@mail.example.org"], "give both user and password"),
            (["--require-verified-email"], "needs --smtp-url"),
            (["--mail-from", "alerts@example.org"], "need --smtp-url"),
            (["--smtp-url", "smtp://mail.example.org", "--mail-from", "nobody"], "is not an address"),
            (["--smtp-url", "smtp://mail.example.org", "--public-url", "ftp://x"], "absolute http or https URL"),
            (["--smtp-url", "smtp://mail.example.org", "--smtp-ca-file", "/nonexistent.pem"], "no readable PEM certificate"),
        ]
        for (flags, message) in cases {
            let result = try await run("bikebeacon-server", ["serve", "--port", "0"] + flags)
            #expect(result.status != 0, "\(flags)")
            #expect(result.stderr.contains(message), "\(flags): \(result.stderr)")
        }
    }
}
