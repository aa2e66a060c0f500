#if canImport(Glibc)
import Glibc
#endif
import Beacon
import CMalloc
import Durable
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GPSD
import Logging
import Registry
import Scanning
import ServerClient
import Tracking

/// The daemon's imperative shell: Scanner → SentinelCore → Outbox → Reporter, with the
/// missing list kept current beside it. Runs until the task is cancelled (SIGTERM), or, for a
/// replay, until the capture is done and the outbox drained (or `drainTimeout` passed).
public enum SentinelRunner {
    public enum Source: Sendable {
        /// Live radio: ticks and readings on `LiveClock`'s monotonic timeline, stamped with the wall clock.
        case live(any Scanning.Scanner)
        /// A capture: time is the capture's; departures are flushed at its end.
        case replay(any Scanning.Scanner)
        /// No scanning: deliver what the outbox holds, then stop.
        case flush
    }

    public struct Summary: Equatable, Sendable {
        /// Advertisements that went through the core.
        public var advertisements: Int
        public var sightingsCreated: Int
        public var delivered: Int
        public var stillQueued: Int
    }

    enum Input: Sendable {
        /// One batch from the scanner.
        case advertisements([Advertisement])
        /// A second passed (live only).
        case tick
        case end((any Error)?)
    }

    static func now() -> Double { Date().timeIntervalSince1970 }

    public static func run(configuration: SentinelConfiguration, source: Source, drainTimeout: Double = 60,
                           logger base: Logger = Logger(label: "bikebeacon.sentinel")) async throws -> Summary {
        // A webhook peer or alarm command that closes early must not kill the daemon.
        signal(SIGPIPE, SIG_IGN)
        // Every warning or error is also kept for the heartbeat's `lastError`.
        let lastError = LastErrorLog()
        var recording = base
        recording.handler = LastErrorLog.recording(base.handler, into: lastError)
        let logger = recording
        let state = configuration.stateDirectory
        let statusDirectory = configuration.statusDirectory ?? state
        for directory in [state, statusDirectory] {
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
        let server = ServerConnection(baseURL: configuration.serverURL, token: configuration.token,
                                      timeout: .milliseconds(Int64(configuration.requestTimeout * 1000)))
        let outbox = try await Outbox.open(path: state + "/outbox.sqlite", maxRows: configuration.outboxMaxRows,
                                           logger: logger.labelled("bikebeacon.outbox"))
        let reporter = Reporter(outbox: outbox, transport: HTTPSightingTransport(server: server),
                                configuration: .init(batchSize: configuration.batchSize), logger: logger.labelled("bikebeacon.reporter"))
        let stats = Stats(startedAt: now())
        let backend: String
        switch source {
        case .live: backend = configuration.backend.rawValue
        case .replay: backend = "replay"
        case .flush: backend = "none"
        }
        let heartbeat = HeartbeatProbe(logger: logger.labelled("bikebeacon.heartbeat")) {
            let snapshot = await stats.snapshot
            let depth = try? await outbox.count()
            let oldest = (depth ?? 0) > 0 ? (try? await outbox.peek(limit: 1))?.first?.time : nil
            return HeartbeatInputs(startedAt: snapshot.startedAt, backend: backend, counts: snapshot.counts,
                                   missingInRange: snapshot.missingInRange, outboxDepth: depth, outboxOldest: oldest,
                                   lastDeliveryAt: await reporter.lastDeliveryAt, disk: DiskSpace.of(state), lastError: lastError.last)
        }
        let serverTime = ServerTime()
        let sync = MissingListSync(source: HTTPMissingListSource(server: server, heartbeat: heartbeat, serverTime: serverTime),
                                   cache: MissingListCache(path: state + "/missing-list.json"), logger: logger.labelled("bikebeacon.missing-list"),
                                   releaseMemory: { _ = malloc_trim(0) })
        // One monotonic timeline for the core and the fix (made before gpsd's first report arrives), stamped by the
        // server's clock while this one is far off it (a Pi without a real-time clock before NTP).
        let clock = LiveClock(wall: serverTime.wall, checked: { serverTime.serverNow != nil })
        let gate = StampGate()
        let roaming = Roaming(configuration.location, clock: clock, logger: logger)
        if case .recorded = configuration.location.source {
            guard case .replay = source else { throw ConfigurationError.invalid("a recorded track plays only on a replayed capture, not live") }
        }
        let mqtt = try configuration.mqtt.map {
            try MQTTBridge(settings: $0, bikes: configuration.ownBikes, configurationURL: configuration.serverURL, stateDirectory: state,
                           logger: logger.labelled("bikebeacon.mqtt"))
        }
        let summary: Summary
        do {
            summary = try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    await gate.wait()
                    await reporter.run(sleep: { try await Task.sleep(for: .seconds($0)) })
                }
                if let mqtt { group.addTask { await mqtt.run() } }
                if let client = roaming?.client, let location = roaming?.location {
                    group.addTask { await client.run { position in await location.take(position) } }
                }
                if let mqtt, mqtt.settings.publishLocation, let roaming {
                    group.addTask {
                        var location = MQTTLocation(topics: mqtt.topics)
                        while !Task.isCancelled {
                            if let message = location.step(await roaming.location.place()) { await mqtt.client.publish([message]) }
                            try await Task.sleep(for: .seconds(1))
                        }
                    }
                }
                if let port = configuration.metricsPort {
                    group.addTask {
                        do {
                            try await MetricsServer.run(host: configuration.metricsHost, port: port, logger: logger) {
                                await status(stats: stats, outbox: outbox, reporter: reporter, sync: sync, roaming: roaming).prometheus
                            }
                        } catch where !(error is CancellationError) {
                            // Metrics are for watching; the sentinel's job goes on without them.
                            logger.error("cannot serve metrics; is the port taken? (metrics.port)",
                                         metadata: ["port": "\(port)", "error": "\(error)"])
                        }
                    }
                }
                group.addTask {
                    while !Task.isCancelled {
                        await writeStatus(directory: statusDirectory, stats: stats, outbox: outbox, reporter: reporter, sync: sync, roaming: roaming, logger: logger)
                        try await Task.sleep(for: .seconds(5))
                    }
                }
                let created: Int
                switch source {
                case .flush:
                    created = 0
                case let .live(scanner), let .replay(scanner):
                    var isReplay = false
                    if case .replay = source { isReplay = true }
                    // "Find my tag" is about the tags here now: live only.
                    let nearby = isReplay ? nil : NearbyListener(server: server, logger: logger.labelled("bikebeacon.find-my-tag"))
                    if let nearby { group.addTask { await nearby.run(sleep: { try await Task.sleep(for: .seconds($0)) }) } }
                    // Live, scanning starts at once with the saved list while the server is asked
                    // (start-up must not wait on the network); a replay, over in moments, needs
                    // the server's answer first.
                    await sync.loadSaved(now: now())
                    if isReplay { await sync.confirm(now: now()) }
                    group.addTask {
                        if !isReplay { await sync.confirm(now: now()) }
                        // Once a minute at least: the refresh carries the heartbeat.
                        await sync.run(interval: min(configuration.listRefreshInterval, HeartbeatMeter.interval), clock: now,
                                       sleep: { try await Task.sleep(for: .seconds($0)) })
                    }
                    created = try await scan(scanner, replay: isReplay, configuration: configuration, outbox: outbox, sync: sync,
                                             stats: stats, mqtt: mqtt, roaming: roaming, nearby: nearby, clock: clock, gate: gate, group: &group, logger: logger)
                }
                if case .live = source {} else {
                    try await waitUntilDrained(outbox, timeout: drainTimeout)
                    // A replay is over long before the minute's refresh that carries the heartbeat: one
                    // refresh at its end tells the server how it went, so a replayed sentinel counts as listening
                    // (a refused one costs nothing: the sightings, delivered above, are what a replay is for).
                    if case .replay = source { _ = try? await sync.refresh(now: now()) }
                    if let mqtt, await !mqtt.client.flush(timeout: .seconds(drainTimeout)) {
                        logger.warning("not every MQTT message reached the broker before the end", metadata: ["broker": "\(mqtt.settings.broker.map { "\($0)" } ?? "")"])
                    }
                }
                group.cancelAll()
                let queued = try await outbox.count()
                if queued > 0 {
                    logger.notice("sightings stay queued in the outbox and will be delivered by the next run",
                                  metadata: ["queued": "\(queued)", "outbox": "\(state)/outbox.sqlite"])
                }
                return Summary(advertisements: await stats.snapshot.advertisements, sightingsCreated: created, delivered: await reporter.delivered, stillQueued: queued)
            }
        } catch {
            // Cancelled (SIGTERM) or failed: the last status is still written, outside the cancelled task.
            await Task { await writeStatus(directory: statusDirectory, stats: stats, outbox: outbox, reporter: reporter, sync: sync, roaming: roaming, logger: logger) }.value
            try? await outbox.close()
            throw error
        }
        await writeStatus(directory: statusDirectory, stats: stats, outbox: outbox, reporter: reporter, sync: sync, roaming: roaming, logger: logger)
        try await outbox.close()
        return summary
    }

    /// Feeds advertisements (and, live, clock ticks) through the core; returns sightings created.
    private static func scan(_ scanner: any Scanning.Scanner, replay: Bool, configuration: SentinelConfiguration, outbox: Outbox,
                             sync: MissingListSync, stats: Stats, mqtt: MQTTBridge?, roaming: Roaming?, nearby: NearbyListener?, clock: LiveClock,
                             gate: StampGate, group: inout ThrowingTaskGroup<Void, any Error>, logger: Logger) async throws -> Int {
        var core = SentinelCore(ownBikes: configuration.ownBikes, registry: await sync.registry,
                                tracking: TrackerConfiguration(proximity: configuration.proximity),
                                sighting: .init(presentInterval: configuration.presentInterval))
        let alarm = Alarm(webhook: configuration.alarmWebhook, command: configuration.alarmCommand, logger: logger.labelled("bikebeacon.alarm"))
        var created = 0
        var alarms: [Task<Void, Never>] = []
        var lastTime = 0.0
        var lastListCheck = now()
        var presence = mqtt?.presence()
        /// A roaming sentinel's passes of missing bikes while it moves.
        var passes = PassingTracker(passInterval: configuration.location.passInterval)
        var lastPassCheck = -Double.infinity
        var pending = PendingSightings(limit: configuration.outboxMaxRows)
        var unchecked = ClockHold()
        if replay { gate.open() }
        /// Live: the core's time now, without the time the scanner could not hear.
        var listening = ListeningTime()
        func liveTime() -> Double {
            let time = listening.coreTime(raw: clock.now, deaf: scanner.deafSeconds())
            core.stampShift = clock.shift + listening.removed
            presence?.stampShift = core.stampShift
            return time
        }
        var warnedDropping = false
        /// Into the outbox, or held in memory while it cannot take them (a full disk must not stop the sentinel).
        func commit(_ sightings: [Sighting]) async {
            let dropped = pending.dropped
            switch await pending.commit(sightings, append: { try await outbox.append($0) }) {
            case .none:
                break
            case let .startedHolding(error):
                logger.error("cannot write to the outbox; new sightings are held in memory and written as soon as it takes writes again: is the state directory's disk full?",
                             metadata: ["error": "\(error)", "outbox": "\(outbox.path)", "held": "\(pending.held.count)",
                                        "heldAtMost": "\(pending.limit)"])
            case let .resumed(written):
                warnedDropping = false
                logger.notice("the outbox takes writes again; the sightings held in memory are written", metadata: ["written": "\(written)"])
            }
            if pending.dropped > dropped, !warnedDropping {
                warnedDropping = true
                logger.warning("too many sightings held in memory while the outbox cannot be written; the oldest 'present' ones are dropped",
                               metadata: ["held": "\(pending.held.count)", "dropped": "\(pending.dropped)"])
            }
        }
        /// `heard`: the advertisement the output came from, if any; `time`: when, if not `lastTime`.
        func deliver(_ out: SentinelCore.Output, heard advertisement: Advertisement? = nil, at time: Double? = nil) async throws {
            var out = out
            if let roaming, !out.sightings.isEmpty {
                // Placed where the sentinel is now: the fix gpsd gave within maxFixAge, or none (never
                // waited for). On the move a bike is passing, not arriving or leaving: the region's
                // sightings count only while parked; passing ones carry their own place.
                let place = await roaming.location.place()
                let parked = await roaming.location.isParked()
                out.sightings = out.sightings.compactMap { sighting in
                    guard sighting.event != .passing else { return sighting }
                    guard parked else { return nil }
                    var placed = sighting
                    placed.place = place
                    return placed
                }
            }
            for sighting in out.sightings {
                created += 1
                logger.info("sighting", metadata: ["event": "\(sighting.event.rawValue)", "beacon": "\(sighting.beacon)",
                                                   "zone": "\(sighting.zone.rawValue)", "rssi": "\(sighting.rssi)", "id": "\(sighting.id)"])
            }
            if !out.sightings.isEmpty || !pending.held.isEmpty { await commit(out.sightings) }
            if !replay, !gate.isOpen {
                // The server may have answered while this step's sightings were written: the shift they were made
                // with is the step's, the one to restamp with is the one the check gives now.
                let made = core.stampShift
                var checked: Double?
                if clock.checked {
                    _ = liveTime()
                    checked = core.stampShift
                }
                if let restamped = unchecked.step(wrote: out.sightings, shift: made, checkedShift: checked) {
                    for sighting in restamped {
                        do { try await outbox.replace(sighting) } catch {
                            logger.warning("cannot restamp a sighting made before the clock was checked; it goes out on the local clock",
                                           metadata: ["id": "\(sighting.id)", "error": "\(error)"])
                        }
                    }
                    gate.open()
                }
            }
            for raised in out.alarms {
                await stats.alarm()
                alarms.append(Task { await alarm.raise(raised) })
                // Alarms are rare; holding a few handles keeps the list bounded for a daemon.
                if alarms.count > 16 { await alarms.removeFirst().value }
            }
            if !out.sightings.isEmpty { await stats.created(out.sightings.count) }
            let estimate = advertisement.flatMap { core.estimate(of: $0.beacon, at: $0.time) }
            if let mqtt, let messages = presence?.step(advertisement: advertisement, estimate: estimate, output: out, time: time ?? lastTime),
               !messages.isEmpty {
                await mqtt.client.publish(messages)
            }
        }
        func handle(_ input: Input) async throws {
            let live = replay ? nil : liveTime()
            switch input {
            case var .advertisements(batch):
                // Live, a batch is one bus dispatch or socket burst, heard moments ago: it joins the core's timeline now.
                if let live {
                    for i in batch.indices { batch[i].time = live }
                }
                nearby?.hear(batch)
                await stats.advertisements(batch.count, matched: batch.count(where: { core.registry.contains($0.beacon) }))
                for advertisement in batch {
                    lastTime = max(lastTime, advertisement.time)
                    // A recorded track plays on the capture's clock (with gpsd there is nothing to advance).
                    if replay, let roaming, roaming.client == nil { await roaming.location.advance(to: advertisement.time) }
                    var out = replay ? core.replay(advertisement, makeID: { UUID() }) : core.observe(advertisement, makeID: { UUID() })
                    if let roaming, core.registry.contains(advertisement.beacon), await !roaming.location.isParked() {
                        passes.observe(advertisement.beacon, time: advertisement.time, rssi: advertisement.rssi,
                                       place: await roaming.location.place(),
                                       estimate: core.estimate(of: advertisement.beacon, at: advertisement.time))
                    }
                    // Passes end on the capture's clock once a second of it, as live ticks end them.
                    if replay, roaming != nil, advertisement.time - lastPassCheck >= 1 {
                        lastPassCheck = advertisement.time
                        out.sightings += passes.finish(at: advertisement.time, makeID: { UUID() })
                    }
                    try await deliver(out, heard: advertisement)
                }
            case .tick:
                guard let time = live else { return }
                lastTime = time
                await stats.scanner(await scanner.counts())
                await stats.inRange(core.openVisits(stamped: false).count)
                var out = core.tick(at: time, makeID: { UUID() })
                if roaming != nil {
                    passes.prune(isMissing: core.registry.contains)
                    // Passes are decided on the core's timeline; like the core's own sightings they leave stamped with the wall clock.
                    out.sightings += passes.finish(at: time, makeID: { UUID() }).map { $0.shifted(by: core.stampShift) }
                }
                try await deliver(out)
            case .end:
                return
            }
            if now() - lastListCheck >= 1 {
                lastListCheck = now()
                let registry = await sync.registry
                if registry.version != core.registry.version { core.updateRegistry(registry, now: lastTime) }
            }
        }
        // Live, the open visits of missing bikes outlive the process: a restart must not report a
        // bike that never left as arrived again. (A capture's time is its own: a replay starts afresh.)
        let visitsFile = VisitsFile(path: configuration.stateDirectory + "/visits.json")
        var saved: (visits: [SightingTracker.OpenVisit], at: Double) = ([], -Double.infinity)
        func saveVisits() {
            let visits = core.openVisits(stamped: false)
            guard visitsFile.isDue(visits, saved: saved.visits, savedAt: saved.at, now: clock.now) else { return }
            do {
                try visitsFile.save(core.openVisits())
            } catch {
                logger.warning("cannot save the open visits; after a restart, missing bikes in range are reported as arrived again",
                               metadata: ["path": "\(visitsFile.path)", "error": "\(error)"])
            }
            saved = (visits, clock.now)
        }
        if !replay {
            let now = liveTime()
            switch visitsFile.load() {
            case .absent:
                break
            case let .loaded(visits):
                let (restored, dropped) = core.restore(visits, now: now)
                if !visits.isEmpty {
                    logger.notice("open visits from before the restart go on without a second arrival; older ones, or of bikes no longer missing, are dropped",
                                  metadata: ["restored": "\(restored)", "dropped": "\(dropped)", "path": "\(visitsFile.path)"])
                }
                saved = (core.openVisits(stamped: false), clock.now)
            case let .ignored(reason):
                logger.warning("ignoring the saved open visits: missing bikes in range are reported as arrived again",
                               metadata: ["path": "\(visitsFile.path)", "reason": "\(reason)"])
            }
        }
        if let tag = configuration.ownBikes.first?.beacon, !configuration.pathLossCalibrated {
            logger.notice("own bikes are watched with the default path loss, not this site's: if the alarm fires while a bike stands still, or a parked bike never arrives, calibrate: hold its tag still 1 m from this sentinel and run the first command, then at 3 m the second with the RSSI the first printed, and paste the calibration: block it prints into this sentinel's configuration",
                          metadata: ["first": "bikebeacon calibrate --beacon \(tag) --distance 1",
                                     "second": "bikebeacon calibrate --beacon \(tag) --distance 3 --other-point 1=RSSI --save sentinel"])
        }
        // The moment start-up ends (`bench startup` waits for this line).
        logger.info("scanning", metadata: ["source": "\(replay ? "replay" : "live")", "missingBikes": "\(core.registry.count)"])
        if replay {
            // A capture is read as fast as it is processed: nothing may be skipped.
            for try await batch in scanner.advertisementBatches() { try await handle(.advertisements(batch)) }
            var out = core.finishReplay(makeID: { UUID() })
            if roaming != nil { out.sightings += passes.finish(at: lastTime, force: true, makeID: { UUID() }) }
            try await deliver(out, at: lastTime + core.flushHorizon)
        } else {
            // Live: advertisement batches and one-second ticks in one stream. If the core cannot
            // keep up, the oldest batches are dropped rather than memory growing (256 batches of
            // at most `ScanBatch.limit`; live batches are one bus dispatch or socket burst each).
            let (inputs, feed) = AsyncStream<Input>.makeStream(bufferingPolicy: .bufferingNewest(256))
            group.addTask {
                do {
                    var warned = false
                    for try await batch in scanner.advertisementBatches() {
                        if case .dropped = feed.yield(.advertisements(batch)), !warned {
                            warned = true
                            logger.warning("the sentinel cannot keep up with the radio; the oldest advertisements are dropped")
                        }
                    }
                    feed.yield(.end(nil))
                } catch {
                    feed.yield(.end(error))
                }
            }
            group.addTask {
                while !Task.isCancelled {
                    try await Task.sleep(for: .seconds(1))
                    feed.yield(.tick)
                }
            }
            for await input in inputs {
                if case let .end(error) = input {
                    if let error { throw error }
                    break
                }
                try await handle(input)
                saveVisits()
            }
        }
        await stats.scanner(await scanner.counts())
        if !pending.held.isEmpty { await commit([]) }
        if !pending.held.isEmpty {
            logger.error("sightings held in memory could not be written to the outbox before the end and are lost",
                         metadata: ["lost": "\(pending.held.count)", "outbox": "\(outbox.path)"])
        }
        // An alarm in flight finishes even when the scan has ended.
        for task in alarms { await task.value }
        return created
    }

    private static func waitUntilDrained(_ outbox: Outbox, timeout: Double) async throws {
        let deadline = now() + timeout
        while try await outbox.count() > 0, now() < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Not durable: the status describes the running process, so a power cut may lose it, and an
    /// fsync every few seconds would wear an SD card for nothing.
    private static func writeStatus(directory: String, stats: Stats, outbox: Outbox, reporter: Reporter, sync: MissingListSync,
                                    roaming: Roaming?, logger: Logger) async {
        let status = await status(stats: stats, outbox: outbox, reporter: reporter, sync: sync, roaming: roaming)
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try AtomicFile.write(try encoder.encode(status), to: directory + "/" + SentinelStatus.fileName, durable: false)
            try AtomicFile.write(Data(status.prometheus.utf8), to: directory + "/" + SentinelStatus.metricsFileName, durable: false)
        } catch {
            logger.warning("cannot write the status file", metadata: ["error": "\(error)"])
        }
    }

    private static func status(stats: Stats, outbox: Outbox, reporter: Reporter, sync: MissingListSync, roaming: Roaming?) async -> SentinelStatus {
        let time = now()
        let registry = await sync.registry
        let snapshot = await stats.snapshot
        var fix: FixStatus?
        if let roaming { fix = await roaming.location.status(connected: roaming.client?.isConnected ?? false) }
        let refused = try? await outbox.refused()
        var status = SentinelStatus(
            pid: getpid(), startedAt: RFC3339.format(snapshot.startedAt), updatedAt: RFC3339.format(time),
            advertisements: snapshot.advertisements, iBeacons: snapshot.iBeacons ?? snapshot.advertisements, matches: snapshot.matches,
            sightingsCreated: snapshot.created, sightingsDelivered: await reporter.delivered, sightingsRejected: await reporter.rejected,
            outboxDepth: (try? await outbox.count()) ?? -1, missingListVersion: registry.version, missingListBikes: registry.count,
            missingListAgeSeconds: await sync.age(now: time), reporterFailures: await reporter.consecutiveFailures, alarms: snapshot.alarms,
            scannerRestarts: snapshot.scannerRestarts, scannerDeafSeconds: snapshot.scannerDeafSeconds,
            scannerWaitingFor: snapshot.scannerWaitingFor, fix: fix)
        status.sightingsRepaired = await reporter.repaired
        status.refusedKept = refused?.count
        status.newestRefusal = refused?.newestReason
        return status
    }

    /// A roaming sentinel's location edge: the gpsd client (none when a recorded track plays) and the fix it keeps.
    struct Roaming: Sendable {
        let client: GPSDClient?
        let location: RoamingLocation

        init?(_ settings: LocationSettings, clock: LiveClock, logger: Logger) {
            switch settings.source {
            case .fixed:
                return nil
            case let .gpsd(host, port):
                client = GPSDClient(configuration: GPSDClientConfiguration(host: host, port: port), logger: logger.labelled("bikebeacon.gpsd"))
                location = RoamingLocation(maxFixAge: settings.maxFixAge, clock: clock)
            case let .recorded(track):
                client = nil
                location = RoamingLocation(maxFixAge: settings.maxFixAge, clock: clock, track: track)
            }
        }
    }
}

/// Counters shared between the scan loop and the status writer.
actor Stats {
    struct Snapshot: Sendable {
        var startedAt: Double
        var advertisements = 0
        var iBeacons: Int?
        var scannerRestarts = 0
        var scannerDeafSeconds = 0.0
        var scannerWaitingFor: String?
        var matches = 0
        var created = 0
        var alarms = 0
        /// The scanner's totals as last read; nil before the first.
        var counts: ScanCounts?
        /// Missing bikes whose visit is open now.
        var missingInRange = 0
    }

    private(set) var snapshot: Snapshot

    init(startedAt: Double) { snapshot = Snapshot(startedAt: startedAt) }

    func advertisements(_ count: Int, matched: Int) {
        snapshot.advertisements += count
        snapshot.matches += matched
    }

    func created(_ count: Int) { snapshot.created += count }
    func alarm() { snapshot.alarms += 1 }
    func inRange(_ count: Int) { snapshot.missingInRange = count }
    func scanner(_ counts: ScanCounts) {
        snapshot.counts = counts
        snapshot.iBeacons = counts.iBeacons
        snapshot.scannerRestarts = counts.restarts
        snapshot.scannerDeafSeconds = counts.deafSeconds
        snapshot.scannerWaitingFor = counts.waitingFor
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
