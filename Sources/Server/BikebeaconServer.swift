import AsyncHTTPClient
import Hummingbird
import HummingbirdBcrypt
import Logging
import NIOPosix

/// Assembles the HTTP application: routes, middleware, and the webhook worker.
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
        httpClient: HTTPClient = .shared, logger: Logger
    ) async throws -> some ApplicationProtocol {
        let cost = options.bcryptCost
        let dummy = try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(Tokens.make(prefix: ""), cost: cost) }
        let state = ServerState(
            database: database, options: options, metrics: metrics, broker: EventBroker(),
            sentinelLimiter: RateLimiter(limit: options.sentinelRateLimit), logger: logger, dummyPasswordHash: dummy)
        let router = Router(context: AppContext.self)
        router.add(middleware: MetricsMiddleware(metrics: metrics))
        router.add(middleware: ErrorMiddleware())
        OpsRoutes.add(to: router, state: state)
        let callers = Authentication.group(router, state: state)
        AccountRoutes.add(to: router, callers: callers, state: state)
        BikeRoutes.add(to: callers, state: state)
        SentinelRoutes.add(to: callers, state: state)
        EventRoutes.add(to: callers, state: state)
        DashboardRoutes.add(to: router)
        let worker = WebhookWorker(database: database, broker: state.broker, backoff: options.webhookBackoff,
                                   httpClient: httpClient, logger: logger, now: options.now)
        return Application(
            router: router,
            configuration: .init(address: .hostname(options.host, port: options.port), serverName: "bikebeacon"),
            services: [worker],
            logger: logger)
    }
}
