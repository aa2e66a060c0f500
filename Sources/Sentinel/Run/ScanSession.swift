import Beacon
import Logging
import Scanning
import Tracking

/// One scan, from the first advertisement to the last. Each input goes through the `AdvertisementIntake` into
/// the core, and what the core gives out through delivery (`deliver`); live, the `VisitStore` keeps the open
/// visits after each input. The stages keep their own state; this type keeps the core they share, the live
/// timeline, and the order they run in.
struct ScanSession {
    private var core: SentinelCore
    private let scanner: any Scanning.Scanner
    private let replay: Bool
    private let services: SentinelServices
    private let nearby: NearbyListener?
    private var intake: AdvertisementIntake
    private var committer: SightingCommitter
    private var correction: StampCorrection
    private var alarms: AlarmDispatch
    private var presence: PresencePublisher?
    private var visits: VisitStore
    /// Live: the core's time now, without the time the scanner could not hear.
    private var listening = ListeningTime()
    private var lastListCheck = SentinelRunner.now()

    init(scanner: any Scanning.Scanner, replay: Bool, services: SentinelServices, nearby: NearbyListener?) async {
        let configuration = services.configuration
        let logger = services.logger
        core = SentinelCore(ownBikes: configuration.ownBikes, registry: await services.sync.registry,
                            tracking: TrackerConfiguration(proximity: configuration.proximity),
                            sighting: .init(presentInterval: configuration.presentInterval))
        self.scanner = scanner
        self.replay = replay
        self.services = services
        self.nearby = nearby
        alarms = AlarmDispatch(alarm: Alarm(webhook: configuration.alarmWebhook, command: configuration.alarmCommand,
                                            logger: logger.labelled("bikebeacon.alarm")), stats: services.stats)
        presence = services.mqtt.map(PresencePublisher.init(mqtt:))
        intake = AdvertisementIntake(replay: replay, roaming: services.roaming, passInterval: configuration.location.passInterval)
        committer = SightingCommitter(outbox: services.outbox, limit: configuration.outboxMaxRows, logger: logger)
        correction = StampCorrection(gate: services.gate, outbox: services.outbox, logger: logger)
        if replay { services.gate.open() }
        visits = VisitStore(file: VisitsFile(path: configuration.stateDirectory + "/visits.json"), clock: services.clock, logger: logger)
    }

    /// Scans until the capture ends or, live, the scanner stops or the task is cancelled; returns the sightings created.
    mutating func run(group: inout ThrowingTaskGroup<Void, any Error>) async throws -> Int {
        if !replay {
            let now = liveTime()
            visits.restore(into: &core, now: now)
        }
        Self.adviseCalibration(services.configuration, logger: services.logger)
        // The moment start-up ends (`bench startup` waits for this line).
        services.logger.info("scanning", metadata: ["source": "\(replay ? "replay" : "live")", "missingBikes": "\(core.registry.count)"])
        if replay { try await runReplay() } else { try await runLive(group: &group) }
        await services.stats.scanner(await scanner.counts())
        await committer.finish()
        await alarms.finish()
        return committer.created
    }

    /// A capture is read as fast as it is processed: nothing may be skipped.
    private mutating func runReplay() async throws {
        for try await batch in scanner.advertisementBatches() { await take(batch) }
        let end = intake.finishReplay(core: &core)
        await deliver(end.output, at: end.time)
    }

    private mutating func runLive(group: inout ThrowingTaskGroup<Void, any Error>) async throws {
        for await input in LiveInputs.stream(from: scanner, group: &group, logger: services.logger) {
            switch input {
            case let .end(error):
                if let error { throw error }
                return
            case let .advertisements(batch):
                await take(batch)
            case .tick:
                await tick()
            }
            visits.save(core)
        }
    }

    /// One batch: on the core's timeline (live), heard by "find my tag", counted, then each advertisement
    /// through the intake and delivery.
    private mutating func take(_ batch: [Advertisement]) async {
        var batch = batch
        if !replay {
            // Live, a batch is one bus dispatch or socket burst, heard moments ago: it joins the core's timeline now.
            let live = liveTime()
            for i in batch.indices { batch[i].time = live }
        }
        nearby?.hear(batch)
        let registry = core.registry
        await services.stats.advertisements(batch.count, matched: batch.count(where: { registry.contains($0.beacon) }))
        for advertisement in batch {
            let out = await intake.observe(advertisement, core: &core)
            await deliver(out, heard: advertisement)
        }
        await checkList()
    }

    /// A second passed (live only).
    private mutating func tick() async {
        let time = liveTime()
        await services.stats.scanner(await scanner.counts())
        await services.stats.inRange(core.openVisits(stamped: false).count)
        let out = intake.tick(at: time, core: &core)
        await deliver(out)
        await checkList()
    }

    /// At most once a second: a newer missing list goes into the core.
    private mutating func checkList() async {
        guard SentinelRunner.now() - lastListCheck >= 1 else { return }
        lastListCheck = SentinelRunner.now()
        let registry = await services.sync.registry
        if registry.version != core.registry.version { core.updateRegistry(registry, now: intake.lastTime) }
    }

    /// The core's output on its way out: placed (roaming), into the outbox, restamped once the clock is checked,
    /// then the alarms, the counters and Home Assistant. `heard`: the advertisement it came from, if any;
    /// `time`: when, if not the intake's last time.
    private mutating func deliver(_ output: SentinelCore.Output, heard advertisement: Advertisement? = nil, at time: Double? = nil) async {
        var out = output
        if let roaming = services.roaming, !out.sightings.isEmpty { out.sightings = await roaming.placed(out.sightings) }
        await committer.commit(out.sightings)
        if !replay, !services.gate.isOpen { await correctStamps(wrote: out.sightings) }
        await alarms.raise(out.alarms)
        if !out.sightings.isEmpty { await services.stats.created(out.sightings.count) }
        let estimate = advertisement.flatMap { core.estimate(of: $0.beacon, at: $0.time) }
        await presence?.publish(advertisement: advertisement, estimate: estimate, output: out, time: time ?? intake.lastTime)
    }

    /// The server may have answered while this step's sightings were written: the shift they were made
    /// with is the step's, the one to restamp with is the one the check gives now.
    private mutating func correctStamps(wrote sightings: [Sighting]) async {
        let made = core.stampShift
        var checked: Double?
        if services.clock.checked {
            _ = liveTime()
            checked = core.stampShift
        }
        await correction.step(wrote: sightings, shift: made, checkedShift: checked)
    }

    /// Live: the core's time now, and the stamp shift of what leaves it.
    private mutating func liveTime() -> Double {
        let time = listening.coreTime(raw: services.clock.now, deaf: scanner.deafSeconds())
        core.stampShift = services.clock.shift + listening.removed
        presence?.stampShift = core.stampShift
        return time
    }

    private static func adviseCalibration(_ configuration: SentinelConfiguration, logger: Logger) {
        guard let tag = configuration.ownBikes.first?.beacon, !configuration.pathLossCalibrated else { return }
        logger.notice("own bikes are watched with the default path loss, not this site's: if the alarm fires while a bike stands still, or a parked bike never arrives, calibrate: hold its tag still 1 m from this sentinel and run the first command, then at 3 m the second with the RSSI the first printed, and paste the calibration: block it prints into this sentinel's configuration",
                      metadata: ["first": "bikebeacon calibrate --beacon \(tag) --distance 1",
                                 "second": "bikebeacon calibrate --beacon \(tag) --distance 3 --other-point 1=RSSI --save sentinel"])
    }
}
