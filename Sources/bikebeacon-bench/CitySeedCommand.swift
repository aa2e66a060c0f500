import ArgumentParser
import Server

/// Enrols a city's sentinels for `scripts/bench-server --city` through the same store `sentinels add` uses,
/// in one process: 10 000 runs of the CLI would take minutes. Prints one token a line.
struct CitySeedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "city-seed",
        abstract: "Enrol N sentinels (bench-city-1…N) spread over a city and print their tokens, one a line.")

    @Option var sentinels = 10_000
    @Option(help: "sqlite:///path/file.sqlite or postgres://user:pass@host:port/db")
    var database: String = DatabaseURL.defaultText

    func validate() throws {
        guard (1...1_000_000).contains(sentinels) else { throw ValidationError("--sentinels must be 1…1000000") }
    }

    func run() async throws {
        let now = ServerOptions.wallClock
        let tokens = try await BenchDatabase.with(database) { db in
            let store = SentinelStore(database: db)
            var tokens: [String] = []
            for n in 1...sentinels {
                let place = Self.place(n)
                tokens.append(try await store.add(name: "bench-city-\(n)", latitude: place.latitude, longitude: place.longitude, now: now()).token)
            }
            return tokens
        }
        print(tokens.joined(separator: "\n"))
    }

    /// Sentinel `n`'s place: a grid of about 10 km × 10 km around the centre of a city.
    static func place(_ n: Int) -> (latitude: Double, longitude: Double) {
        (52.0 + Double(n % 100) * 0.001, 5.0 + Double(n / 100 % 100) * 0.0015)
    }
}
