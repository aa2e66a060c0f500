import AsyncHTTPClient
import Logging

/// What every route needs, built once per server instance.
struct ServerState: Sendable {
    let database: Database
    let options: ServerOptions
    let metrics: ServerMetrics
    let sentinelLimiter: RateLimiter
    let signupLimiter: RateLimiter
    let beaconTakenLimiter: RateLimiter
    let logger: Logger
    /// A bcrypt hash of a random string at the configured cost, checked when no account matches so failed logins take equal time.
    let dummyPasswordHash: String
    let vapid: VAPID
    let outbound: OutboundHTTP
    let notifications: NotificationDispatcher
    /// Hands closed event streams' memory back to the system (`EventRoutes`).
    let memoryTrim = MemoryTrim()
    /// Sentinels' tokens and the missing list's version, from memory on the sentinels' poll.
    let sentinelPolls: SentinelPollCache
    /// The missing list's answers, made once per version and shared by every request.
    let missingListBodies = MissingListBodies()
    let missingBikes = MissingBikeIndex()

    var sessions: SessionStore { SessionStore(database: database) }
    var accounts: AccountStore { AccountStore(database: database) }
    var logins: LoginGuard { LoginGuard(database: database, throttle: options.loginThrottle) }
    var missingList: MissingListStore { MissingListStore(database: database, retention: options.deltaRetention) }
    var bikes: BikeStore {
        BikeStore(database: database, missingList: missingList, notifications: notifications, limit: options.bikesPerAccount,
                  missingPeriod: options.missingPeriod, newTagHold: options.newTagHold)
    }
    var readLog: ReadLog { ReadLog(database: database) }
    var sightings: SightingStore { SightingStore(database: database, notifications: notifications, estimatesOnIngest: options.estimatesOnIngest) }
    var pushSubscriptions: PushSubscriptionStore { PushSubscriptionStore(database: database) }
    var sentinelHealth: SentinelHealthStore { SentinelHealthStore(database: database, thresholds: options.sentinelThresholds) }
    var sentinelAlerts: SentinelAlertStore {
        SentinelAlertStore(database: database, policy: options.sentinelAlerts, mail: options.mail, dispatcher: notifications,
                           backoff: options.webhookBackoff,
                           logger: logger, now: options.now)
    }
    var mailer: AccountMailer { AccountMailer(options: options.mail, logger: logger, now: options.now) }
    var now: Int64 { options.now() }
}
