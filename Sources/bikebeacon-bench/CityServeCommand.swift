import ArgumentParser
import Logging
import Server

/// The server as `scripts/bench-server --city` starts it (serve's flags that it passes, the same defaults), with
/// one switch serve lacks: `--no-ingest-estimate` leaves the bike's position estimate (#44) out of each sighting's event, so
/// the city's load shows what estimating costs on ingest (`CITY_INGEST_ESTIMATE=off`; `on` runs this same
/// command without it, so both sides of the ratio start alike).
struct CityServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "city-serve",
        abstract: "Serve as scripts/bench-server --city does, optionally without the estimate on ingest (the baseline of its cost).")

    @Option var port = 8080
    @Option(help: "sqlite:///path/file.sqlite or postgres://user:pass@host:port/db")
    var database: String = DatabaseURL.defaultText
    @Option var sentinelRate = 10.0
    @Option var signupsPerHour = 10.0
    @Option var bcryptCost: UInt8 = 12
    @Option var newTagHold = 24.0
    @Flag(help: "Leave the position estimate out of sighting events.")
    var noIngestEstimate = false

    func run() async throws {
        var logger = Logger(label: "bikebeacon-bench-city-serve")
        logger.logLevel = .warning
        var options = ServerOptions(host: "127.0.0.1", port: port, bcryptCost: bcryptCost,
                                    sentinelRateLimit: RateLimit(perSecond: sentinelRate, burst: sentinelRate * 3))
        options.signupLimit = .perHour(signupsPerHour)
        options.newTagHold = NewTagHold(hours: newTagHold)
        options.estimatesOnIngest = !noIngestEstimate
        try await BenchDatabase.with(database, logger: logger, now: options.now()) { db in
            try await BikebeaconServer.makeApplication(database: db, options: options, logger: logger).runService()
        }
    }
}
