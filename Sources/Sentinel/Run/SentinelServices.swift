import BikebeaconAPI
import CMalloc
import Durable
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import ServerClient

/// What one run opens before it listens, in this order: the state and status directories, the outbox and
/// its reporter, the heartbeat, the missing list, the clocks, and the optional edges (gpsd, MQTT).
struct SentinelServices: Sendable {
    let configuration: SentinelConfiguration
    /// Every warning or error it logs is also kept for the heartbeat's `lastError`.
    let logger: Logger
    let server: ServerConnection
    let outbox: Outbox
    let reporter: Reporter
    let stats: Stats
    let sync: MissingListSync
    /// One monotonic timeline for the core and the fix (made before gpsd's first report arrives), stamped by the
    /// server's clock while this one is far off it (a Pi without a real-time clock before NTP).
    let clock: LiveClock
    /// Opened once the sightings made before the clock was checked are restamped: the reporter waits for it.
    let gate: StampGate
    let roaming: Roaming?
    let mqtt: MQTTBridge?
    let status: StatusPublisher

    static func open(configuration: SentinelConfiguration, source: SentinelRunner.Source, logger base: Logger) async throws -> SentinelServices {
        let lastError = LastErrorLog()
        var recording = base
        recording.handler = LastErrorLog.recording(base.handler, into: lastError)
        let logger = recording
        let state = configuration.stateDirectory
        let statusDirectory = configuration.statusDirectory ?? state
        try prepare([state, statusDirectory], state: state, logger: logger)
        let server = ServerConnection(baseURL: configuration.serverURL, token: configuration.token,
                                      timeout: .milliseconds(Int64(configuration.requestTimeout * 1000)))
        let outbox = try await Outbox.open(path: state + "/outbox.sqlite", maxRows: configuration.outboxMaxRows,
                                           logger: logger.labelled("bikebeacon.outbox"))
        let reporter = Reporter(outbox: outbox, transport: HTTPSightingTransport(server: server),
                                configuration: .init(batchSize: configuration.batchSize), logger: logger.labelled("bikebeacon.reporter"))
        let stats = Stats(startedAt: SentinelRunner.now())
        let heartbeat = HeartbeatProbe(logger: logger.labelled("bikebeacon.heartbeat")) {
            await heartbeatInputs(backend: backend(of: source, configuration: configuration), stats: stats, outbox: outbox,
                                  reporter: reporter, state: state, lastError: lastError, pathLoss: configuration.pathLoss)
        }
        let serverTime = ServerTime()
        let sync = MissingListSync(source: HTTPMissingListSource(server: server, heartbeat: heartbeat, serverTime: serverTime),
                                   cache: MissingListCache(path: state + "/missing-list.json"), logger: logger.labelled("bikebeacon.missing-list"),
                                   releaseMemory: { _ = malloc_trim(0) })
        let clock = LiveClock(wall: serverTime.wall, checked: { serverTime.serverNow != nil })
        let roaming = Roaming(configuration.location, clock: clock, logger: logger)
        if case .recorded = configuration.location.source {
            guard case .replay = source else { throw ConfigurationError.invalid("a recorded track plays only on a replayed capture, not live") }
        }
        let mqtt = try configuration.mqtt.map {
            try MQTTBridge(settings: $0, bikes: configuration.ownBikes, configurationURL: configuration.serverURL, stateDirectory: state,
                           logger: logger.labelled("bikebeacon.mqtt"))
        }
        let status = StatusPublisher(directory: statusDirectory, stats: stats, outbox: outbox, reporter: reporter, sync: sync,
                                     roaming: roaming, logger: logger)
        return SentinelServices(configuration: configuration, logger: logger, server: server, outbox: outbox, reporter: reporter,
                                stats: stats, sync: sync, clock: clock, gate: StampGate(), roaming: roaming, mqtt: mqtt, status: status)
    }

    /// Makes the directories, and clears what a power cut left in the state directory.
    private static func prepare(_ directories: [String], state: String, logger: Logger) throws {
        for directory in directories {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw ConfigurationError.invalid("cannot create the state directory \(directory): \(IOErrorText.describe(error))")
            }
        }
        // A power cut during a write leaves its temporary file beside the state file it would have replaced.
        for file in ["visits.json", "missing-list.json"] {
            let removed = AtomicFile.removeLeftovers(of: state + "/" + file)
            if !removed.isEmpty {
                logger.notice("removed what a write cut short left in the state directory (the file it was replacing is intact)",
                              metadata: ["files": "\(removed.joined(separator: ", "))", "directory": "\(state)"])
            }
        }
    }

    /// The scanner's name in the heartbeat.
    private static func backend(of source: SentinelRunner.Source, configuration: SentinelConfiguration) -> String {
        switch source {
        case .live: configuration.backend.rawValue
        case .replay: "replay"
        case .flush: "none"
        }
    }

    /// What the heartbeat tells the server, read at each list refresh.
    private static func heartbeatInputs(backend: String, stats: Stats, outbox: Outbox, reporter: Reporter, state: String,
                                        lastError: LastErrorLog, pathLoss: SentinelPathLoss) async -> HeartbeatInputs {
        let snapshot = await stats.snapshot
        let depth = try? await outbox.count()
        let oldest = (depth ?? 0) > 0 ? (try? await outbox.peek(limit: 1))?.first?.time : nil
        return HeartbeatInputs(startedAt: snapshot.startedAt, backend: backend, counts: snapshot.counts,
                               missingInRange: snapshot.missingInRange, outboxDepth: depth, outboxOldest: oldest,
                               lastDeliveryAt: await reporter.lastDeliveryAt, disk: DiskSpace.of(state), lastError: lastError.last,
                               pathLoss: pathLoss)
    }
}

extension Logger {
    /// The same handler and level under another label.
    func labelled(_ label: String) -> Logger {
        var copy = self
        copy[metadataKey: "component"] = "\(label)"
        return copy
    }
}
