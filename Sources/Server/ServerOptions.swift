#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Durable

/// Everything about a server instance that is not the database: where it listens, and the
/// policies tests and benchmarks turn down or up.
public struct ServerOptions: Sendable {
    public var host: String
    public var port: Int
    /// Where Prometheus reads `/metrics` (`serve --metrics-host/--metrics-port`); no port, no metrics listener.
    /// Never the API's port: see `OpsRoutes.metricsRouter`.
    public var metricsHost = "127.0.0.1"
    public var metricsPort: Int? = nil
    /// A connection that sends nothing this long is closed (`serve --idle-timeout`): half-sent requests
    /// cannot hold connections (and file descriptors) open for good. Open event streams are not idle.
    public var idleTimeout: Duration = .seconds(30)
    /// bcrypt work factor; 12 in production, lower only in tests.
    public var bcryptCost: UInt8
    public var loginThrottle: LoginThrottle
    /// Requests per sentinel to `POST /v1/sightings`, shared by every server on the database.
    public var sentinelRateLimit: RateLimit
    /// Most bikes one owner may register (`serve --bikes-per-account`). Every missing bike is on the
    /// list each sentinel downloads and holds, so one account must not be able to grow it without bound.
    public var bikesPerAccount = 100
    /// How long a bike stays missing unless renewed (`serve --missing-days`).
    public var missingPeriod = MissingPeriod()
    /// A tag put on a bike less than this long ago is marked missing only with a police report's reference (`serve --new-tag-hold`).
    public var newTagHold = NewTagHold()
    /// Sign-ups per client address (`serve --signups-per-hour`), shared by every server on the database.
    /// Every account may add bikes to the list each sentinel holds, so a script must not mint accounts freely.
    public var signupLimit = RateLimit.perHour(10)
    /// `409 beacon_taken` answers per account (`BeaconProbes`): a few at once, then one an hour.
    public var beaconTakenLimit = RateLimit(perSecond: 1.0 / 3600, burst: 5)
    /// Enrolment-code exchanges per client address (`POST /v1/sentinel/enrol`), shared by every server on the database.
    /// A code has 100 random bits; the limit keeps a guesser from loading the database, not from guessing.
    public var enrolLimit = RateLimit.perHour(30)
    /// "Found a tag?" requests (look-ups, messages, reports) per client address: enough for a finder who mistypes,
    /// too few to walk the tag space or to write to many owners.
    public var foundTagClientLimit = RateLimit.perHour(20)
    /// Finders' messages to one tag's owner, and reports of one tag, from anyone: a few a day, so that nobody
    /// can flood an owner (or the operator) through one tag.
    public var foundTagPerTagLimit = RateLimit(perSecond: 3.0 / 86_400, burst: 3)
    /// Reports of hidden tags per client address (`serve --reports-per-client`, a day), a budget of their own: look-ups
    /// and messages from the same network (a shared NAT, a housemate) cannot spend a victim's report (#43).
    public var foundReportClientLimit = RateLimit(perSecond: 3.0 / 86_400, burst: 3)
    /// Past this many reports network-wide in an hour (`serve --report-breaker-per-hour`), further reports are held for
    /// the operator, who is mailed at once, instead of sealing: nobody can seal many owners' bikes at once (#43).
    public var reportBreakerPerHour = 10
    /// How long a closed case's sealed sightings are kept for the police (`serve --sealed-retention-days`).
    public var sealedRetentionMilliseconds: Int64 = 180 * 86_400_000
    /// The reverse proxies whose `X-Forwarded-For` is believed (`serve --trusted-proxy`); none by default. See `ClientAddress`.
    public var trustedProxies = TrustedProxies.none
    /// Missing-list versions of change log kept for deltas; older `since` values get the full list.
    public var deltaRetention: Int64
    public var webhookBackoff: Backoff
    /// Per bike and place at most one notification per this many milliseconds (`serve --notify-interval`).
    public var notifyIntervalMilliseconds: Int64
    /// Lets webhooks and push endpoints be loopback or private addresses, and push endpoints plain http (tests, development).
    public var allowPrivateTargets: Bool
    /// The VAPID `sub` claim: a `mailto:` or `https:` contact push services can reach the operator at.
    public var vapidSubject: String
    /// Where people outside reach this server (`serve --public-url`), for share links and the report's
    /// QR code; see `PublicOrigin`.
    public var publicURL: String? = nil
    /// SMTP and links for email (notifications, password reset); nil sends no email.
    public var mail: MailOptions? = nil
    /// Sessions only for owners who confirmed their address (`serve --require-verified-email`; needs `mail`).
    public var requireVerifiedEmail = false
    /// The dashboard map's tile source (`serve --map-tiles`); the page's CSP allows its origin.
    public var mapTiles: MapTiles = .openStreetMap
    /// Debian's `libjs-leaflet` files, served at `/leaflet/`; absent, the dashboard draws its SVG sketch.
    public var leafletDirectory: String = "/usr/share/javascript/leaflet"
    /// How long dashboard (cookie) sessions last without use, and at most.
    public var sessions = SessionPolicy()
    /// When a sentinel counts as silent or degraded (`serve --sentinel-silent-after` etc.).
    public var sentinelThresholds = SentinelThresholds()
    /// Who is told when a sentinel turns degraded or silent, and after how long (`serve --operator-email`, `--sentinel-alert-after`).
    public var sentinelAlerts = SentinelAlertPolicy()
    /// How often the server looks for sentinels that went silent.
    public var sentinelSweepInterval: Duration = .seconds(15)
    /// How old the sentinels' poll may answer from memory (`SentinelPollCache`): the longest a revocation, a
    /// new token or a list change made by another process goes unseen when no `NOTIFY` tells of it.
    public var sentinelPollMaxAge: Duration = .seconds(1)
    /// Whether a sighting's event carries its bike's position estimate (#44). Off only in `bikebeacon-bench
    /// city-serve --no-ingest-estimate`, the baseline that shows what estimating costs on ingest; serve has no flag for it.
    public var estimatesOnIngest = true
    /// The wall clock in epoch milliseconds; injected so tests control time-based policies.
    public var now: @Sendable () -> Int64

    public init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        bcryptCost: UInt8 = 12,
        loginThrottle: LoginThrottle = LoginThrottle(),
        sentinelRateLimit: RateLimit = RateLimit(perSecond: 10, burst: 30),
        deltaRetention: Int64 = ServerOptions.defaultDeltaRetention,
        webhookBackoff: Backoff = .deliveries,
        notifyIntervalMilliseconds: Int64 = 30 * 60 * 1000,
        allowPrivateTargets: Bool = false,
        vapidSubject: String = "mailto:bikebeacon@localhost",
        now: @escaping @Sendable () -> Int64 = ServerOptions.wallClock
    ) {
        self.host = host
        self.port = port
        self.bcryptCost = bcryptCost
        self.loginThrottle = loginThrottle
        self.sentinelRateLimit = sentinelRateLimit
        self.deltaRetention = deltaRetention
        self.webhookBackoff = webhookBackoff
        self.notifyIntervalMilliseconds = notifyIntervalMilliseconds
        self.allowPrivateTargets = allowPrivateTargets
        self.vapidSubject = vapidSubject
        self.now = now
    }

    /// Versions of missing-list changes kept for deltas (`serve --delta-retention`'s default).
    public static let defaultDeltaRetention: Int64 = 10_000

    @Sendable public static func wallClock() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }
}
