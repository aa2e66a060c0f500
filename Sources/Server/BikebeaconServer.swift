import Hummingbird
import HummingbirdBcrypt
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// Assembles the HTTP application: routes, middleware, the delivery worker (webhooks and notifications)
/// and, on PostgreSQL, the listener that hears other replicas' events.
public enum BikebeaconServer {
    /// Opens the database and brings its schema up to date (every start; a no-op when current).
    public static func openDatabase(_ url: DatabaseURL, logger: Logger, now: Int64) async throws -> Database {
        let database = try Database(url: url, logger: logger)
        do {
            try await Migrations.run(on: database, now: now)
        } catch {
            await database.shutdown()
            throw error
        }
        return database
    }

    public static func makeApplication(
        database: Database, options: ServerOptions, metrics: ServerMetrics = ServerMetrics(),
        logger: Logger
    ) async throws -> some ApplicationProtocol {
        let cost = options.bcryptCost
        let dummy = try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(Tokens.make(prefix: ""), cost: cost) }
        let vapid = VAPID(key: try await PushSubscriptionStore.vapidKey(database: database, now: options.now()),
                          subject: options.vapidSubject)
        let outbound = OutboundHTTP(allowPrivateTargets: options.allowPrivateTargets)
        let pushSender = WebPushSender(subscriptions: PushSubscriptionStore(database: database), vapid: vapid, http: outbound,
                                       logger: logger, now: options.now)
        // Every channel the server can send on; email when SMTP is configured.
        var senders: [any NotificationSender] = [pushSender]
        if let mail = options.mail {
            senders.append(EmailSender(database: database, options: mail, logger: logger, now: options.now))
        }
        let dispatcher = NotificationDispatcher(interval: options.notifyIntervalMilliseconds,
                                                channels: Set(senders.map(\.channel)), flavor: database.flavor)
        let state = ServerState(
            database: database, options: options, metrics: metrics,
            sentinelLimiter: RateLimiter(database: database, limit: options.sentinelRateLimit),
            signupLimiter: RateLimiter(database: database, limit: options.signupLimit),
            beaconTakenLimiter: RateLimiter(database: database, limit: options.beaconTakenLimit), logger: logger, dummyPasswordHash: dummy,
            vapid: vapid, outbound: outbound, notifications: dispatcher, 
            sentinelPolls: SentinelPollCache(database: database, maxAge: options.sentinelPollMaxAge))
        let router = Router(context: AppContext.self)
        router.add(middleware: MetricsMiddleware(metrics: metrics))
        router.add(middleware: ErrorMiddleware())
        OpsRoutes.add(to: router, state: state)
        let callers = Authentication.group(router, state: state)
        AccountRoutes.add(to: router, callers: callers, state: state)
        AccountDataRoutes.add(to: callers, state: state)
        SessionRoutes.add(to: callers, state: state)
        BikeRoutes.add(to: callers, state: state)
        BeaconParseRoutes.add(to: callers, state: state)
        ShareRoutes.add(to: router, callers: callers, state: state)
        BikeDateRoutes.add(to: callers, state: state)
        ReportRoutes.add(to: callers, state: state)
        SentinelRoutes.add(to: callers, state: state)
        NearbyRoutes.add(to: callers, state: state)
        NetworkRoutes.add(to: callers, state: state)
        CoverageMapRoutes.add(to: callers, state: state)
        EnrolmentRoutes.add(to: router, state: state)
        FoundTagRoutes.add(to: router, state: state)
        EventRoutes.add(to: callers, state: state)
        DashboardRoutes.add(to: router, options: options, logger: logger)
        PushRoutes.add(to: router, callers: callers, state: state)
        AccountMailRoutes.add(to: router, state: state)
        var queue = NotificationQueue(database: database, dispatcher: dispatcher,
                                      senders: Dictionary(senders.map { ($0.channel, $0) }) { first, _ in first },
                                      backoff: options.webhookBackoff, logger: logger, now: options.now, alerts: state.sentinelAlerts)
        queue.missingExpiry = MissingExpiry(database: database, missingList: state.missingList, dispatcher: dispatcher,
                                            period: options.missingPeriod)
        queue.sealedRetention = options.sealedRetentionMilliseconds
        queue.abuseMails = options.mail.map {
            AbuseMailQueue(database: database, mail: $0, backoff: options.webhookBackoff, logger: logger, now: options.now)
        }
        let worker = WebhookWorker(database: database, backoff: options.webhookBackoff,
                                   http: outbound, notifications: queue, logger: logger, now: options.now)
        let sweep = SentinelSweep(store: state.sentinelHealth, alerts: state.sentinelAlerts, interval: options.sentinelSweepInterval,
                                  logger: logger, now: options.now)
        var services: [any Service] = [worker, sweep]
        if case let .postgres(url) = database.url {
            services.append(PostgresEventListener(url: url, events: database.events, heardChange: database.noteChange, logger: logger))
        }
        if let port = options.metricsPort {
            let health = state.sentinelHealth
            services.append(OpsRoutes.metricsListener(metrics, beforeScrape: { await OpsRoutes.countSentinels(health, into: metrics, logger: logger) },
                                                      host: options.metricsHost, port: port, logger: logger))
        }
        return Application(
            responder: StreamOpening(router: router.buildResponder()),
            // The idle timeout closes a connection that sends nothing, a request's head or body half sent
            // included; a request being answered (an open event stream) is not idle.
            server: .http1(configuration: .init(idleTimeout: TimeAmount(options.idleTimeout))),
            configuration: .init(address: .hostname(options.host, port: options.port), serverName: "bikebeacon"),
            services: services,
            logger: logger)
    }
}
