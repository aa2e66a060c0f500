#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import Scanning

/// The daemon's imperative shell: Scanner → SentinelCore → Outbox → Reporter, with the
/// missing list kept current beside it. Runs until the task is cancelled (SIGTERM), or, for a
/// replay, until the capture is done and the outbox drained (or `drainTimeout` passed).
///
/// In stages, each in this folder: `SentinelServices` opens what a run needs and starts the tasks beside
/// the scan; a `ScanSession` takes each input through the `AdvertisementIntake` and the core, and what
/// comes out through the `SightingCommitter`, the `StampCorrection`, the `AlarmDispatch` and the
/// `PresencePublisher`, keeping open visits in the `VisitStore`; the `StatusPublisher` writes the status.
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

    static func now() -> Double { Date().timeIntervalSince1970 }

    public static func run(configuration: SentinelConfiguration, source: Source, drainTimeout: Double = 60,
                           logger base: Logger = Logger(label: "bikebeacon.sentinel")) async throws -> Summary {
        // A webhook peer or alarm command that closes early must not kill the daemon.
        signal(SIGPIPE, SIG_IGN)
        let services = try await SentinelServices.open(configuration: configuration, source: source, logger: base)
        let summary: Summary
        do {
            summary = try await withThrowingTaskGroup(of: Void.self) { group in
                services.startBackgroundTasks(in: &group)
                let created = try await scan(source, services: services, group: &group)
                if case .live = source {} else { try await finish(source, services: services, drainTimeout: drainTimeout) }
                group.cancelAll()
                return try await finalSummary(created: created, services: services)
            }
        } catch {
            // Cancelled (SIGTERM) or failed: the last status is still written, outside the cancelled task.
            await Task { await services.status.write() }.value
            try? await services.outbox.close()
            throw error
        }
        await services.status.write()
        try await services.outbox.close()
        return summary
    }

    /// Scans the source, if it has one, with the missing list kept current beside it; returns the sightings created.
    private static func scan(_ source: Source, services: SentinelServices,
                             group: inout ThrowingTaskGroup<Void, any Error>) async throws -> Int {
        let scanner: any Scanning.Scanner
        let isReplay: Bool
        switch source {
        case .flush: return 0
        case let .live(radio): (scanner, isReplay) = (radio, false)
        case let .replay(capture): (scanner, isReplay) = (capture, true)
        }
        let sync = services.sync
        let configuration = services.configuration
        // "Find my tag" is about the tags here now: live only.
        let nearby = isReplay ? nil : NearbyListener(server: services.server, logger: services.logger.labelled("bikebeacon.find-my-tag"))
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
        var session = await ScanSession(scanner: scanner, replay: isReplay, services: services, nearby: nearby)
        return try await session.run(group: &group)
    }

    /// A replay or a flush ends once the outbox is drained (or `drainTimeout` passed).
    private static func finish(_ source: Source, services: SentinelServices, drainTimeout: Double) async throws {
        try await waitUntilDrained(services.outbox, timeout: drainTimeout)
        // A replay is over long before the minute's refresh that carries the heartbeat: one
        // refresh at its end tells the server how it went, so a replayed sentinel counts as listening
        // (a refused one costs nothing: the sightings, delivered above, are what a replay is for).
        if case .replay = source { _ = try? await services.sync.refresh(now: now()) }
        if let mqtt = services.mqtt, await !mqtt.client.flush(timeout: .seconds(drainTimeout)) {
            services.logger.warning("not every MQTT message reached the broker before the end",
                                    metadata: ["broker": "\(mqtt.settings.broker.map { "\($0)" } ?? "")"])
        }
    }

    private static func waitUntilDrained(_ outbox: Outbox, timeout: Double) async throws {
        let deadline = now() + timeout
        while try await outbox.count() > 0, now() < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    private static func finalSummary(created: Int, services: SentinelServices) async throws -> Summary {
        let queued = try await services.outbox.count()
        if queued > 0 {
            services.logger.notice("sightings stay queued in the outbox and will be delivered by the next run",
                                   metadata: ["queued": "\(queued)", "outbox": "\(services.configuration.stateDirectory)/outbox.sqlite"])
        }
        return Summary(advertisements: await services.stats.snapshot.advertisements, sightingsCreated: created,
                       delivered: await services.reporter.delivered, stillQueued: queued)
    }
}
