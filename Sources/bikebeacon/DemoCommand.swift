import ArgumentParser
import Beacon
import BikebeaconAPI
import Foundation
import LocalServer
import Logging
import Owners
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
            throw LocalServerError("no capture at \(capture): run the demo from the repository root, or pass --capture FILE")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bikebeacon-demo-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { if !keep { try? FileManager.default.removeItem(at: directory) } }

        say("bikebeacon demo: a missing bike found by a sentinel, end to end, no Bluetooth needed.\n")
        let binary = try LocalServer.locateBinary()
        let server = try LocalServer(binary: binary, directory: directory)
        let sentinelToken = try LocalServer.enrolSentinel(binary: binary, database: server.database, name: Self.place.name,
                                                         latitude: Self.place.latitude, longitude: Self.place.longitude)
        try await server.start()
        defer { server.stop() }
        say("1. server     bikebeacon-server on \(server.baseURL), SQLite in \(directory.path)")
        say("2. sentinel   \"\(Self.place.name)\" enrolled at \(Self.place.latitude), \(Self.place.longitude)")

        let account = try AccountClient(server: server.baseURL)
        let email = "ana@example.org", password = "correct horse battery staple"
        _ = try await account.createAccount(email: email, password: password)
        let token = try await account.logIn(email: email, password: password)
        let bike = try await account.register(BikeFields(name: "Ana's commuter", make: "Gazelle", model: "Ultimate C8", colour: "green",
                                                         frameNumber: "GZ-2291-4471", beacon: bikeBeacon), token: token)
        say("3. owner      \(email) registered \(bike.name): a \(bike.colour) \(bike.make) \(bike.model), tag \(bikeBeacon)")
        _ = try await account.markMissing(bike: bike.id, token: token)
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

        let sightings = Array(try await account.sightings(bike: bike.id, token: token).reversed())
        say("6. the owner  GET /v1/bikes/\(bike.id)/sightings:\n")
        say(SightingTable.render(sightings))
        guard let found = SightingTable.summary(sightings) else {
            throw LocalServerError("the sentinel reported no sighting of the missing bike; rerun with --verbose to see why")
        }
        say("\nFound: \(bike.name) was \(found).")
        if keep { say("Kept: \(directory.path) (server.log, demo.sqlite, sentinel/)") }
    }

    private func say(_ line: String) { print(line) }
}
