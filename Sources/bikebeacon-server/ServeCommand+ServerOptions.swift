import ArgumentParser
import Logging
import Server

/// The server's options from the serve flags (each checked by `validate` first), with a warning for each
/// setting an operator should not leave so.
extension Serve {
    /// When sentinels count as silent or degraded, from the flags.
    var sentinelThresholds: SentinelThresholds {
        var thresholds = SentinelThresholds()
        thresholds.silentAfterMilliseconds = Int64(sentinelSilentAfter * 1000)
        thresholds.quietRadioSeconds = sentinelQuietRadioAfter
        thresholds.outboxAgeSeconds = sentinelOutboxAge
        thresholds.clockOffsetSeconds = sentinelClockOffset
        thresholds.diskFreeFraction = sentinelDiskFree / 100
        return thresholds
    }

    func tiles() throws -> MapTiles {
        do {
            return try MapTiles(template: mapTiles, attribution: mapAttribution)
        } catch {
            throw ValidationError("--map-tiles: \(error.description)")
        }
    }

    func serverOptions(logger: Logger) throws -> ServerOptions {
        var options = ServerOptions(host: host, port: port, bcryptCost: bcryptCost,
                                    sentinelRateLimit: RateLimit(perSecond: sentinelRate, burst: sentinelRate * 3),
                                    notifyIntervalMilliseconds: Int64(notifyInterval * 60_000),
                                    allowPrivateTargets: allowPrivateTargets, vapidSubject: vapidSubject)
        options.mail = try mailOptions()
        options.requireVerifiedEmail = requireVerifiedEmail
        options.bikesPerAccount = bikesPerAccount
        options.missingPeriod = MissingPeriod(days: missingDays)
        options.newTagHold = NewTagHold(hours: newTagHold)
        if newTagHold == 0 {
            logger.warning("--new-tag-hold 0: a tag registered a minute ago can be marked missing without a police report; keep the hold on a public server")
        }
        options.signupLimit = .perHour(signupsPerHour)
        options.trustedProxies = try trustedProxies()
        options.metricsHost = metricsHost
        options.metricsPort = metricsPort
        options.idleTimeout = .milliseconds(Int64(idleTimeout * 1000))
        options.publicURL = try checkedPublicURL()
        if options.publicURL == nil {
            logger.warning("no --public-url: share links and report QR codes start with what a --trusted-proxy says, else http://\(host):\(port); set --public-url to the address owners use")
        }
        if let mail = options.mail {
            logger.info("email enabled", metadata: ["smtp": "\(mail.smtp)", "from": "\(mail.from.address)", "links": "\(mail.publicURL)"])
        }
        options.mapTiles = try tiles()
        options.leafletDirectory = leafletDirectory
        options.sentinelThresholds = sentinelThresholds
        options.sentinelSweepInterval = .milliseconds(Int64(sentinelSweepInterval * 1000))
        options.sentinelAlerts.holdOffMilliseconds = Int64(sentinelAlertAfter * 60_000)
        options.sentinelAlerts.operatorEmails = operatorEmail
        options.foundReportClientLimit = RateLimit(perSecond: Double(reportsPerClient) / 86_400, burst: Double(reportsPerClient))
        options.reportBreakerPerHour = reportBreakerPerHour
        options.sealedRetentionMilliseconds = Int64(sealedRetentionDays) * 86_400_000
        if operatorEmail.isEmpty || options.mail == nil {
            logger.warning("NO OPERATOR MAIL ROUTE: a report of a tag hidden on someone seals a bike and nobody is mailed; check `bikebeacon-server abuse list` or the Network page every day, or give --operator-email and --smtp-url (a server with --public-url or beyond loopback refuses to start without them unless --reports-without-operator-mail)")
        }
        return options
    }
}
