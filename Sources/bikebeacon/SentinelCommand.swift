#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Console
import Logging
import Scanning
import Sentinel

struct SentinelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sentinel",
        abstract: "Watch for missing bikes and report sightings to the server; raise the own-bike alarm.",
        discussion: """
        Settings come from the YAML file given with --config, then BIKEBEACON_SERVER_URL, \
        BIKEBEACON_TOKEN, BIKEBEACON_STATE_DIRECTORY, BIKEBEACON_STATUS_DIRECTORY, BIKEBEACON_BACKEND, BIKEBEACON_ADAPTER and \
        BIKEBEACON_MQTT_URL, \
        then the options below. Sightings are committed to an outbox in the state directory before \
        they are sent, so a crash or an unreachable server loses nothing. Stops cleanly on \
        SIGTERM or Ctrl-C. With --replay, reads a capture instead of the radio and exits once the \
        capture is done and its sightings are delivered (or --drain-timeout passed).
        """
    )

    @Option(help: "YAML config file.")
    var config: String?

    @Option(help: "Check this config file (keys, types, values, with the environment and options applied) and exit: 0 when the sentinel could start with it.")
    var checkConfig: String?

    @Option(help: "Scan this capture (btsnoop, pcap, pcapng) instead of the radio.")
    var replay: String?

    @Flag(help: "Only deliver what the outbox holds, then exit.")
    var flush = false

    @Option(help: "Server URL, e.g. http://127.0.0.1:8080.")
    var serverURL: String?

    @Option(help: "Sentinel token from `bikebeacon-server sentinels add`.")
    var token: String?

    @Option(help: "Directory for the outbox, the saved missing list and the status file.")
    var stateDirectory: String?

    @Option(help: "dbus (BlueZ, default) or hci (raw socket, needs CAP_NET_RAW and CAP_NET_ADMIN).")
    var backend: String?

    @Option(help: "Adapter, e.g. hci0.")
    var adapter: String?

    @Option(help: "Publish presence to this MQTT broker (mqtt://user:pass@host:1883 or mqtts://…); the config's mqtt section sets the rest.")
    var mqttURL: String?

    @Option(help: "With --replay or --flush: longest wait for the outbox to drain, seconds.")
    var drainTimeout: Double = 60

    @Flag(help: "Log debug detail.")
    var verbose = false

    func validate() throws {
        if flush, replay != nil { throw ValidationError("--flush and --replay exclude each other") }
        if checkConfig != nil, config != nil { throw ValidationError("--check-config names the file to check; leave out --config") }
        guard drainTimeout >= 0, drainTimeout <= 1e9 else { throw ValidationError("--drain-timeout must be 0…1000000000 seconds") }
    }

    func run() async throws {
        var logger = Logger(label: "bikebeacon.sentinel") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = verbose ? .debug : .info
        let settings: SentinelConfiguration
        do {
            settings = try resolve()
            try settings.validate()
        } catch {
            StandardError.line("bikebeacon sentinel: \((checkConfig ?? config).map { "\($0): " } ?? "")\(error)")
            throw ExitCode(2)
        }
        if let checkConfig {
            print("\(checkConfig): OK (server \(settings.serverURL), \(settings.backend.rawValue) scanner, \(settings.ownBikes.count) own bike(s), state in \(settings.stateDirectory))")
            return
        }
        let source: SentinelRunner.Source
        if flush {
            source = .flush
        } else if let replay {
            source = .replay(CaptureScanner(path: replay, logger: logger))
        } else {
            switch settings.backend {
            case .dbus:
                let scanner = DBusScannerConfiguration(adapter: settings.adapter, resetsStuckDiscovery: settings.resetsStuckDiscovery,
                                                       activatesBluetoothd: settings.startsBluetoothd)
                source = .live(DBusScanner(configuration: scanner, logger: logger))
            case .hci: source = .live(HCIScanner(adapter: settings.adapter ?? "hci0", logger: logger))
            }
        }
        let timeout = drainTimeout
        let runLogger = logger
        let outcome: Result<SentinelRunner.Summary, any Error> = await Interruption.run(duration: nil) {
            do {
                return .success(try await SentinelRunner.run(configuration: settings, source: source, drainTimeout: timeout, logger: runLogger))
            } catch {
                return .failure(error)
            }
        }
        if case let .live(scanner) = source, let hci = scanner as? HCIScanner { await hci.waitUntilStopped() }
        switch outcome {
        case let .success(summary):
            logger.info("sentinel stopped", metadata: ["sightingsCreated": "\(summary.sightingsCreated)",
                                                       "delivered": "\(summary.delivered)", "stillQueued": "\(summary.stillQueued)"])
        case let .failure(error) where error is CancellationError:
            logger.info("sentinel stopped")
        case let .failure(error):
            StandardError.line("bikebeacon sentinel: \(error)")
            throw ExitCode.failure
        }
    }

    private func resolve() throws -> SentinelConfiguration {
        let environment = ProcessInfo.processInfo.environment
        var settings = try (checkConfig ?? config).map { try SentinelConfiguration.load(path: $0, environment: environment) }
            ?? SentinelConfiguration.parse(yaml: "", environment: environment)
        if let serverURL { settings.serverURL = serverURL }
        if let token { settings.token = token }
        if let stateDirectory { settings.stateDirectory = stateDirectory }
        if let adapter { settings.adapter = adapter }
        if let mqttURL { settings.mqtt = settings.mqtt.map { $0.with(url: mqttURL) } ?? MQTTSettings(url: mqttURL) }
        if let backend {
            guard let value = SentinelConfiguration.Backend(rawValue: backend) else { throw ValidationError("--backend must be dbus or hci") }
            settings.backend = value
        }
        return settings
    }
}
