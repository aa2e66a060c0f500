import Testing
import TestSupport

/// A report never waits unseen (#43 goal 5): `serve` for the public (a `--public-url`, or a host beyond loopback)
/// refuses to start without an operator mail route unless told to take reports unmailed; the report flags are checked.
@Suite struct ReportRouteCommandLineTests {
    @Test func publicServerNeedsAnOperatorMailRoute() async throws {
        for flags in [["--public-url", "https://bikes.example.org"], ["--host", "0.0.0.0"],
                      ["--public-url", "https://bikes.example.org", "--smtp-url", "smtp://mail.example.org"]] {
            let result = try await run("bikebeacon-server", ["serve", "--port", "0"] + flags)
            #expect(result.status != 0, "\(flags)")
            #expect(result.stderr.contains("give --operator-email ADDRESS and --smtp-url") && result.stderr.contains("--reports-without-operator-mail"),
                    "\(flags): \(result.stderr)")
        }
        for (flags, message) in [(["--reports-per-client", "0"], "--reports-per-client must be 1…100"),
                                 (["--report-breaker-per-hour", "0"], "--report-breaker-per-hour must be 1…10000"),
                                 (["--sealed-retention-days", "0"], "--sealed-retention-days must be 1…3650")] {
            let result = try await run("bikebeacon-server", ["serve", "--port", "0"] + flags)
            #expect(result.status != 0 && result.stderr.contains(message), "\(flags): \(result.stderr)")
        }
    }
}
