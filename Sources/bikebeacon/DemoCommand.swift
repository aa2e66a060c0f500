import ArgumentParser
import Beacon
import BikebeaconAPI
import Foundation
import Logging
import NIOHTTP1
import Scanning
import Sentinel

struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Watch a missing bike get found: server, owner, sentinel and a real capture, no Bluetooth needed.",
        discussion: """
        Starts a throwaway bikebeacon-server (SQLite in a temp dir), enrols a sentinel at a cafe, \
        registers an owner and a bike whose tag is in a real Raspberry Pi capture, marks the bike \
        missing, runs a sentinel replaying that capture, and prints the sightings the owner sees.
        """
    )

    @Option(help: "The capture the sentinel replays.")
    var capture = "Resources/captures/govee-h5100.btsnoop"

    @Option(help: "The bike's beacon: a tag heard in the capture.")
    var beacon = "494E5445-4C4C-495F-524F-434B535F4857:20596:25984"

    @Flag(help: "Keep the temp dir (database, server log, sentinel state) and print where it is.")
    var keep = false

    @Flag(help: "Show the sentinel's and server's logs.")
    var verbose = false

    static let place = (name: "Cafe Rosa, Utrecht", latitude: 52.0907, longitude: 5.1214)

    func run() async throws {
        guard let bikeBeacon = BeaconID(beacon) else { throw ValidationError("--beacon must be UUID:MAJOR:MINOR") }
        guard FileManager.default.fileExists(atPath: capture) else {
            throw DemoError("no capture at \(capture): run the demo from the repository root, or pass --capture FILE")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bikebeacon-demo-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { if !keep { try? FileManager.default.removeItem(at: directory) } }

        say("bikebeacon demo: a missing bike found by a sentinel, end to end, no Bluetooth needed.\n")
        let binary = try DemoServer.locateBinary()
        let server = try DemoServer(binary: binary, directory: directory)
        let sentinelToken = try DemoServer.enrolSentinel(binary: binary, database: server.database, name: Self.place.name,
                                                         latitude: Self.place.latitude, longitude: Self.place.longitude)
        try await server.start()
        defer { server.stop() }
        say("1. server     bikebeacon-server on \(server.baseURL), SQLite in \(directory.path)")
        say("2. sentinel   \"\(Self.place.name)\" enrolled at \(Self.place.latitude), \(Self.place.longitude)")

        let anonymous = ServerConnection(baseURL: server.baseURL, token: "")
        let email = "ana@example.org", password = "correct horse battery staple"
        let credentials = Credentials(email: email, password: password)
        _ = try await call(anonymous, .POST, "/v1/accounts", credentials)
        let session: Token = try decode(try await call(anonymous, .POST, "/v1/sessions", credentials))
        let owner = ServerConnection(baseURL: server.baseURL, token: session.token)
        let bike: BikebeaconAPI.Bike = try decode(try await call(owner, .POST, "/v1/bikes", BikeFields(
            name: "Ana's commuter", make: "Gazelle", model: "Ultimate C8", colour: "green", frameNumber: "GZ-2291-4471", beacon: bikeBeacon)))
        say("3. owner      \(email) registered \(bike.name): a \(bike.colour) \(bike.make) \(bike.model), tag \(bikeBeacon)")
        _ = try await call(owner, .POST, "/v1/bikes/\(bike.id)/missing")
        say("4. missing    \(email) marked it missing: it is on every sentinel's missing list")

        var settings = SentinelConfiguration(serverURL: server.baseURL, token: sentinelToken,
                                             stateDirectory: directory.appendingPathComponent("sentinel").path)
        settings.presentInterval = 120
        var logger = Logger(label: "bikebeacon.sentinel") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = verbose ? .info : .error
        say("5. sentinel   replaying \(capture): a Raspberry Pi's radio, 386 s, 6 tags")
        let summary = try await SentinelRunner.run(configuration: settings, source: .replay(CaptureScanner(path: capture)),
                                                   drainTimeout: 30, logger: logger)
        say("              \(summary.advertisements) iBeacon advertisements, \(summary.sightingsCreated) sightings created, \(summary.delivered) delivered")

        let page: SightingPage = try decode(try await call(owner, .GET, "/v1/bikes/\(bike.id)/sightings?limit=100"))
        say("6. the owner  GET /v1/bikes/\(bike.id)/sightings:\n")
        let sightings = page.sightings.reversed()
        say(Self.table(Array(sightings)))
        guard let first = sightings.first, let last = sightings.last else {
            throw DemoError("the sentinel reported no sighting of the missing bike; rerun with --verbose to see why")
        }
        say("\nFound: \(bike.name) was at \(first.sentinel) (\(first.latitude), \(first.longitude)) from \(Self.clock(first.firstSeen)) to \(Self.clock(last.lastSeen)) UTC, \(Self.closest(Array(sightings))).")
        if keep { say("Kept: \(directory.path) (server.log, demo.sqlite, sentinel/)") }
    }

    private func say(_ line: String) { print(line) }

    private func call(_ connection: ServerConnection, _ method: HTTPMethod, _ path: String, _ body: (some Encodable)? = Empty?.none) async throws -> Data {
        let json = try body.map { try JSONEncoder().encode($0) }
        let (status, _, bytes) = try await connection.send(method, path, json: json)
        guard (200..<300).contains(status.code) else { throw ServerError(status: status, body: bytes) }
        return Data(bytes.readableBytesView)
    }

    private func decode<T: Decodable>(_ data: Data) throws -> T { try JSONDecoder().decode(T.self, from: data) }

    static func table(_ sightings: [SightingRecord]) -> String {
        let line = { (cells: [String]) in "  " + zip(cells, [19, 9, 10, 8, 5]).map { pad($0, $1) }.joined(separator: " ") + " " + (cells.last ?? "") }
        let rows = sightings.map { s in
            line([clock(s.time), s.event, s.zone, s.distance.map { String(format: "%.1f m", $0) } ?? "?", String(s.rssi), s.sentinel])
        }
        return ([line(["TIME (UTC)", "EVENT", "ZONE", "DISTANCE", "RSSI", "PLACE"])] + rows).joined(separator: "\n")
    }

    /// `2024-01-27T20:54:08.993Z` → `2024-01-27 20:54:08`.
    static func clock(_ rfc3339: String) -> String {
        String(rfc3339.prefix(19)).replacingOccurrences(of: "T", with: " ")
    }

    static func closest(_ sightings: [SightingRecord]) -> String {
        let zones = ["immediate", "near", "far"]
        guard let best = sightings.map(\.zone).min(by: { (zones.firstIndex(of: $0) ?? 9) < (zones.firstIndex(of: $1) ?? 9) }) else { return "" }
        return "at closest \(best)"
    }

    private static func pad(_ s: String, _ width: Int) -> String { s + String(repeating: " ", count: max(0, width - s.count)) }
}

private struct Empty: Encodable {}
