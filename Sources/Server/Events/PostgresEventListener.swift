import Durable
import Logging
import NIOPosix
import PostgresKit
import ServiceLifecycle

/// On PostgreSQL, every replica hears the events every other replica stores: `EventStore`
/// sends `NOTIFY bikebeacon_events, '<account id>'` inside the storing transaction (so it is
/// delivered on commit), and this service `LISTEN`s on its own connection and signals
/// `Database.events`. When the connection drops it reconnects with backoff and then wakes
/// everyone once, since notifications sent meanwhile are lost.
struct PostgresEventListener: Service {
    static let channel = "bikebeacon_events"
    /// The payload migration 130's triggers send when the missing list or a sentinel changed (not an account id).
    static let pollStampPayload = "poll-stamp"
    /// Replicas that lost the database together do not all come back in the same instant.
    static let reconnect = Backoff(initial: 1, maximum: 30)

    let url: String
    let events: EventSignal
    /// Tells this process's caches that another replica changed what they hold (`Database.noteChange`).
    let heardChange: @Sendable () -> Void
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown { await loop() }
    }

    private func loop() async {
        var failures = 0
        while !Task.isCancelled {
            do {
                let configuration = try SQLPostgresConfiguration(url: url).coreConfiguration
                let connection = try await PostgresConnection.connect(
                    on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration, id: 0, logger: logger)
                do {
                    try await connection.listen(on: Self.channel) { notifications in
                        if failures > 0 { logger.info("listening for other replicas' events again", metadata: ["afterFailures": "\(failures)"]) }
                        failures = 0
                        heardChange()
                        await events.signalAll()
                        for try await notification in notifications {
                            if notification.payload == Self.pollStampPayload {
                                heardChange()
                            } else {
                                await events.signal(accounts: [notification.payload])
                            }
                        }
                    }
                } catch {
                    try? await connection.close()
                    throw error
                }
                try? await connection.close()
            } catch {
                if Task.isCancelled { return }
                failures += 1
                let delay = Self.reconnect.delay(afterFailures: failures, random: Double.random(in: 0..<1)) ?? Self.reconnect.maximum
                logger.warning("lost the PostgreSQL connection that hears other replicas' events; live events and webhooks from other replicas wait until it is back",
                               metadata: ["error": "\(String(reflecting: error))", "retryInSeconds": "\(Int(delay.rounded()))"])
                try? await Task.sleep(for: .seconds(delay))
            }
        }
    }
}
