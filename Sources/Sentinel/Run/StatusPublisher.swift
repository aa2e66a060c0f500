#if canImport(Glibc)
import Glibc
#endif
import Durable
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging

/// What the running sentinel is doing, for the people watching it: `status.json` and the metrics file in the
/// status directory, and the metrics endpoint's answer.
struct StatusPublisher: Sendable {
    let directory: String
    let stats: Stats
    let outbox: Outbox
    let reporter: Reporter
    let sync: MissingListSync
    let roaming: Roaming?
    let logger: Logger

    /// Not durable: the status describes the running process, so a power cut may lose it, and an
    /// fsync every few seconds would wear an SD card for nothing.
    func write() async {
        let status = await status()
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try AtomicFile.write(try encoder.encode(status), to: directory + "/" + SentinelStatus.fileName, durable: false)
            try AtomicFile.write(Data(status.prometheus.utf8), to: directory + "/" + SentinelStatus.metricsFileName, durable: false)
        } catch {
            logger.warning("cannot write the status file", metadata: ["error": "\(error)"])
        }
    }

    func status() async -> SentinelStatus {
        let time = SentinelRunner.now()
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
}
