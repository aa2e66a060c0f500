import Logging
import ServiceLifecycle

/// Judges every sentinel again every `interval`: the only way silence is noticed (a silent
/// sentinel sends nothing to react to). Its first pass runs at start-up, so states are recomputed
/// from the stored heartbeats after a restart or with changed thresholds. Then claims the alerts
/// that are due (states that lasted the hold-off).
struct SentinelSweep: Service {
    let store: SentinelHealthStore
    let alerts: SentinelAlertStore
    let interval: Duration
    let logger: Logger
    let now: @Sendable () -> Int64

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    let notified = try await store.sweep(now: now())
                    await store.database.events.signal(accounts: notified)
                    try await alerts.claimDue()
                } catch {
                    if Task.isCancelled { return }
                    logger.error("sentinel health sweep failed; retrying at the next pass: silent sentinels are noticed (and alerts sent) late",
                                 metadata: ["error": "\(error)"])
                }
                try? await Task.sleep(for: interval)
            }
        }
    }
}
