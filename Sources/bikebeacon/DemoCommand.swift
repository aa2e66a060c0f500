import ArgumentParser
import Beacon
import BikebeaconAPI
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
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
        missing, runs a sentinel replaying that capture, and prints the sightings the owner sees. \
        Then a roaming sentinel, "Bus line 12", drives a recorded GPS track past the bike: a stretch \
        of the same capture replayed while the track plays on the same clock (gpsd's recorded \
        output, not a live gpsd), and the owner sees where on the route it was heard. Last, the cafe's \
        sentinel goes quiet: the server (its thresholds cut to seconds) calls it silent and mails the \
        operator (a mail catcher on loopback stands in for a mail server); it comes back, and the \
        owner's coverage view says when nobody was listening at the cafe.
        """
    )

    @Option(help: "The capture the sentinel replays.")
    var capture = "Resources/captures/govee-h5100.btsnoop"

    @Option(help: "The bike's beacon: a tag heard in the capture.")
    var beacon = "494E5445-4C4C-495F-524F-434B535F4857:20596:25984"

    @Option(help: "The recorded GPS track the roaming sentinel drives: gpsd's JSON output, one report a line.")
    var track = "Resources/tracks/haicom-305N.json"

    @Flag(help: "Keep the temp dir (database, server log, sentinel state) and print where it is.")
    var keep = false

    @Flag(help: "Show the sentinel's and server's logs.")
    var verbose = false

    static let place = (name: "Cafe Rosa, Utrecht", latitude: 52.0907, longitude: 5.1214)
    static let bus = "Bus line 12"
    /// The reference a real owner would copy from their police report; the demo's server keeps the default hold on new tags.
    static let policeReference = "DEMO-2026-0042"
    /// Where in the capture the bus passes, seconds after its first report: the tag is heard four
    /// times in the track's length from here, after the receiver's first half minute (±143–401 m).
    static let busPassesAt = 180.0
    static let operatorEmail = "operator@example.org"
    /// Seconds without a heartbeat before this demo's server calls a sentinel silent (a real one: 300).
    /// Longer than the first act takes from the cafe's first heartbeat to its last.
    static let silentAfter = 8
    /// The capture's first seconds, before the bike's tag is first heard: the cafe's radio hearing the street.
    static let streetOnly = 5.0
    /// Seconds the cafe stays quiet after the operator's mail, so its gap in the owner's coverage shows.
    static let quietAfterMail = 5

    func run() async throws {
        guard let bikeBeacon = BeaconID(beacon) else { throw ValidationError("--beacon must be UUID:MAJOR:MINOR") }
        guard FileManager.default.fileExists(atPath: capture) else {
            throw LocalServerError("no capture at \(capture): run the demo from the repository root, or pass --capture FILE")
        }
        guard let trackBytes = FileManager.default.contents(atPath: track) else {
            throw LocalServerError("no GPS track at \(track): run the demo from the repository root, or pass --track FILE")
        }
        let route = try RecordedTrack(gpsdJSON: trackBytes)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bikebeacon-demo-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { if !keep { try? FileManager.default.removeItem(at: directory) } }

        say("bikebeacon demo: a missing bike found by a sentinel, end to end, no Bluetooth needed.\n")
        let binary = try LocalServer.locateBinary()
        let mail = try await MailCatcher()
        let server = try LocalServer(binary: binary, directory: directory, options: [
            "--smtp-url", mail.smtpURL, "--mail-from", "bikebeacon demo <demo@example.org>", "--operator-email", Self.operatorEmail,
            "--sentinel-silent-after", String(Self.silentAfter), "--allow-short-silence", "--sentinel-alert-after", "0", "--sentinel-sweep-interval", "1",
        ])
        let sentinelToken = try LocalServer.enrolSentinel(binary: binary, database: server.database, name: Self.place.name,
                                                         latitude: Self.place.latitude, longitude: Self.place.longitude, onCoverageMap: true)
        try await server.start()
        defer { server.stop() }
        say("1. server     bikebeacon-server on \(server.baseURL), SQLite in \(directory.path)")
        var settings = SentinelConfiguration(serverURL: server.baseURL, token: sentinelToken,
                                             stateDirectory: directory.appendingPathComponent("sentinel").path)
        settings.presentInterval = 120
        var logger = Logger(label: "bikebeacon.sentinel") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = verbose ? .info : .error
        try await hearStreet(settings, logger: logger)
        say("2. sentinel   \"\(Self.place.name)\" enrolled at \(Self.place.latitude), \(Self.place.longitude); its heartbeat says it listens")

        let account = try AccountClient(server: server.baseURL)
        let email = "ana@example.org", password = "correct horse battery staple"
        _ = try await account.createAccount(email: email, password: password)
        let token = try await account.logIn(email: email, password: password)
        let bike = try await account.register(BikeFields(name: "Ana's commuter", make: "Gazelle", model: "Ultimate C8", colour: "green",
                                                         frameNumber: "GZ-2291-4471", beacon: bikeBeacon), token: token)
        say("3. owner      \(email) registered \(bike.name): a \(bike.colour) \(bike.make) \(bike.model), tag \(bikeBeacon)")
        // The server runs with its default hold on new tags: a tag registered a minute ago is marked missing
        // only with a police report's reference, as a real owner whose bike was just stolen would give.
        _ = try await account.markMissing(bike: bike.id, policeReference: Self.policeReference, token: token)
        say("4. missing    \(email) marked it missing with police report \(Self.policeReference) (a tag registered less than 24 h ago needs one):")
        say("              it is on every sentinel's missing list")

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

        say("\nSecond act: a bus with a GPS drives past the bike.\n")
        let busToken = try LocalServer.enrolRoamingSentinel(binary: binary, database: server.database, name: Self.bus)
        say("7. bus        \"\(Self.bus)\" enrolled as a roaming sentinel: no place of its own, each sighting carries its GPS fix")
        var busSettings = SentinelConfiguration(serverURL: server.baseURL, token: busToken,
                                                stateDirectory: directory.appendingPathComponent("bus").path)
        busSettings.location = LocationSettings(source: .recorded(route))
        say("8. bus        replaying \(Int(route.duration)) s of the capture from \(Int(Self.busPassesAt)) s in, while a recorded GPS track plays on the same clock")
        say("              (\(track): gpsd's output for a recorded walk, \(route.reports.count) reports; the demo replays it instead of a live gpsd)")
        let busSummary = try await SentinelRunner.run(
            configuration: busSettings,
            source: .replay(StretchScanner(CaptureScanner(path: capture), offset: Self.busPassesAt, duration: route.duration)),
            drainTimeout: 30, logger: logger)
        say("              \(busSummary.advertisements) iBeacon advertisements, \(busSummary.sightingsCreated) sightings created, \(busSummary.delivered) delivered")

        let fromBus = try await account.sightings(bike: bike.id, token: token).reversed().filter { $0.sentinel == Self.bus }
        say("9. the owner  the sightings from \(Self.bus):\n")
        say(SightingTable.render(fromBus))
        guard let seen = SightingTable.summary(fromBus) else {
            throw LocalServerError("the bus reported no sighting of the missing bike; rerun with --verbose to see why")
        }
        say("\nSeen: \(bike.name) was \(seen).")

        say("\nThird act: the cafe's sentinel goes quiet.\n")
        say("10. quiet     \(Self.place.name) sends no more heartbeats; this server calls a sentinel silent after \(Self.silentAfter) s without one (a real one: 5 min)")
        let silent = try await mailed(mail, subject: "Sentinel \(Self.place.name) has gone silent")
        say("11. operator  mail to \(Self.operatorEmail):")
        say("                Subject: \(silent.subject)")
        // The facts and the advice, without the subject's repetition and the signature.
        for line in silent.text.split(separator: "\n").dropFirst().prefix(while: { $0 != "-- " }) { say("                \(line)") }
        try await Task.sleep(for: .seconds(Self.quietAfterMail))
        try await hearStreet(settings, logger: logger)
        let back = try await mailed(mail, subject: "Sentinel \(Self.place.name) is listening again")
        say("12. back      \(Self.quietAfterMail) s later the cafe hears the street again (\(Int(Self.streetOnly)) s of the capture); mail: \"\(back.subject)\"")
        let coverage = try await account.coverage(bike: bike.id, token: token)
        say("13. the owner GET /v1/bikes/\(bike.id)/coverage, what \"not heard\" means around the last place:\n")
        for line in CoverageText.lines(coverage) { say("  \(line)") }
        await mail.stop()
        if keep { say("Kept: \(directory.path) (server.log, demo.sqlite, sentinel/, bus/)") }
    }

    /// The cafe's radio for the capture's first seconds (other tags, not the bike's): its heartbeat at
    /// the end of the replay tells the server it listens.
    private func hearStreet(_ settings: SentinelConfiguration, logger: Logger) async throws {
        _ = try await SentinelRunner.run(configuration: settings,
                                         source: .replay(StretchScanner(CaptureScanner(path: capture), offset: 0, duration: Self.streetOnly)),
                                         drainTimeout: 30, logger: logger)
    }

    /// The first mail to the operator whose subject is `subject`, waiting for it as long as the
    /// server takes to notice the silence (its sweep runs every second) and send it.
    private func mailed(_ catcher: MailCatcher, subject: String) async throws -> CaughtMail {
        let deadline = ContinuousClock.now + .seconds(Self.silentAfter + 30)
        while ContinuousClock.now < deadline {
            if let mail = catcher.mails.first(where: { $0.subject == subject && $0.recipients.contains(Self.operatorEmail) }) { return mail }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw LocalServerError("the operator got no mail '\(subject)' within \(Self.silentAfter + 30) s; rerun with --keep and read server.log")
    }

    private func say(_ line: String) { print(line) }
}
