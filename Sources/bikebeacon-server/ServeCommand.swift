import ArgumentParser
import BikebeaconAPI
import Foundation
import Logging
import Mail
import NIOCore
import NIOSSL
import Server

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve the HTTP API.")

    @Option(help: "Address to listen on.") var host = "127.0.0.1"
    @Option(help: "Port to listen on.") var port = 8080
    @Option(help: "Address the Prometheus metrics listener binds; keep it off the public network.") var metricsHost = "127.0.0.1"
    @Option(help: "Port for GET /metrics (Prometheus), apart from the API's; without it metrics are not served.")
    var metricsPort: Int?
    @Option(help: "Seconds a connection may send nothing (a half-sent request included) before it is closed; open event streams are exempt.")
    var idleTimeout: Double = 30
    @OptionGroup var database: DatabaseOption
    @Option(help: "Sighting batches per second each sentinel may send (shared by every server on the database).") var sentinelRate: Double = 10
    @Option(help: "bcrypt cost for new passwords (4…31).") var bcryptCost: UInt8 = 12
    @Option(help: "Most bikes one owner may register; every missing bike is on the list each sentinel keeps.")
    var bikesPerAccount = 100
    @Option(help: "Days a bike stays on the missing list unless its owner renews it (reminded 3 days before), so no tag is followed for good.")
    var missingDays = 30
    @Option(help: "Hours after a tag is put on a bike during which marking the bike missing needs a police report's reference (the operator sees it in `reads`); 0 turns the hold off.")
    var newTagHold: Double = 24
    @Option(help: "Sign-ups per client address per hour (shared by every server on the database); raise it for a registration event.")
    var signupsPerHour: Double = 10
    @Option(help: ArgumentHelp("A reverse proxy whose X-Forwarded-For (the client's address) is believed: an address or CIDR block, IPv4 or IPv6 (repeatable, or comma-separated; e.g. 127.0.0.1,::1 for one on this host). None by default.", valueName: "address[/bits]"))
    var trustedProxy: [String] = []
    @Flag(help: .hidden) var trustProxy = false
    @Option(help: "Minutes between notifications per bike and place; later events in the window are summarised.")
    var notifyInterval: Double = 30
    @Flag(help: "Let webhooks and push endpoints be loopback or private addresses, and push endpoints plain http (tests, development).")
    var allowPrivateTargets = false
    @Option(help: "Contact for push services in VAPID tokens: mailto:ADDRESS or an https: URL.")
    var vapidSubject = "mailto:bikebeacon@localhost"
    @Option(help: "Send email through this server: smtp://[user:pass@]host[:port] (STARTTLS when offered) or smtps://… (TLS).")
    var smtpURL: String?
    @Option(help: "Sender of the emails, ADDRESS or 'Name <ADDRESS>' (default: bikebeacon@ the SMTP host).")
    var mailFrom: String?
    @Option(help: "Where owners reach this server; links in emails start with it (default: http://HOST:PORT).")
    var publicURL: String?
    @Option(help: "PEM file of the CA (or self-signed certificate) the SMTP server's certificate must chain to, instead of the system's.")
    var smtpCAFile: String?
    @Flag(help: "Owners must confirm their email address (a mailed link) before they can log in; needs --smtp-url.")
    var requireVerifiedEmail = false
    @Option(help: "The dashboard map's tile URL template ({z}, {x}, {y}; {s} for subdomains); the page may load images from its host only.")
    var mapTiles = MapTiles.openStreetMap.template
    @Option(help: "The attribution the tile provider asks for, shown on the map.") var mapAttribution = MapTiles.defaultAttribution
    @Option(help: "Where Debian's libjs-leaflet put Leaflet; without it the dashboard draws its offline sketch.")
    var leafletDirectory = "/usr/share/javascript/leaflet"
    @Option(help: "Seconds without a heartbeat after which a sentinel is silent (measured by this server's clock).")
    var sentinelSilentAfter: Double = 300
    @Option(help: "Seconds without any BLE report after which a sentinel is degraded (a working radio hears phones all day).")
    var sentinelQuietRadioAfter: Double = 600
    @Option(help: "Age in seconds of a sentinel's oldest undelivered sighting after which it is degraded.")
    var sentinelOutboxAge: Double = 900
    @Option(help: "Seconds a sentinel's clock may be off the server's before it is degraded.")
    var sentinelClockOffset: Double = 120
    @Option(help: "Percent of free disk in a sentinel's state directory below which it is degraded.")
    var sentinelDiskFree: Double = 5
    @Option(help: "Mailed about every sentinel that turns degraded or silent, and when it recovers (repeatable; needs --smtp-url).")
    var operatorEmail: [String] = []
    @Option(help: "Minutes a sentinel's problem (or its recovery) must last before anyone is mailed, so a flapping connection sends nothing.")
    var sentinelAlertAfter: Double = 10
    @Option(help: "Seconds between this server's checks for sentinels gone silent.")
    var sentinelSweepInterval: Double = 15
    @Flag(help: "Let --sentinel-silent-after be shorter than a healthy sentinel's gaps between heartbeats (the demo, tests: their sentinels stop on purpose).")
    var allowShortSilence = false
    @Option(help: "Reports of tags hidden on someone per client address a day, a budget apart from look-ups and messages.")
    var reportsPerClient = 3
    @Option(help: "Reports network-wide in an hour past which further reports are held for the operator (mailed at once) instead of sealing bikes.")
    var reportBreakerPerHour = 10
    @Option(help: "Days a closed report case's sealed sightings are kept for the police before they are deleted (`abuse purge` deletes them sooner).")
    var sealedRetentionDays = 180
    @Flag(help: "Serve the public (--public-url, or a host beyond loopback) without --operator-email and --smtp-url: nobody is mailed of a report of a hidden tag; the operator must watch `abuse list` or the Network page.")
    var reportsWithoutOperatorMail = false

    func validate() throws {
        if trustProxy {
            throw ValidationError("--trust-proxy is gone: it believed X-Forwarded-For from every peer. Name the proxies instead: --trusted-proxy ADDRESS[/BITS] (e.g. --trusted-proxy 10.0.0.5, or --trusted-proxy 127.0.0.1,::1 for one on this host)")
        }
        _ = try trustedProxies()
        guard (4...31).contains(bcryptCost) else { throw ValidationError("--bcrypt-cost must be 4…31") }
        if let metricsPort {
            guard (1...65535).contains(metricsPort) else { throw ValidationError("--metrics-port must be 1…65535") }
            guard metricsPort != port else { throw ValidationError("--metrics-port must differ from --port: metrics stay off the API's port") }
        }
        guard idleTimeout >= 1, idleTimeout <= 3600 else { throw ValidationError("--idle-timeout must be 1…3600 seconds") }
        guard sentinelRate > 0 else { throw ValidationError("--sentinel-rate must be positive") }
        guard bikesPerAccount > 0 else { throw ValidationError("--bikes-per-account must be at least 1") }
        guard (1...365).contains(missingDays) else { throw ValidationError("--missing-days must be 1…365") }
        guard newTagHold.isFinite, (0...720).contains(newTagHold) else { throw ValidationError("--new-tag-hold must be 0…720 hours (0 turns it off)") }
        guard signupsPerHour >= 1, signupsPerHour <= 1_000_000 else { throw ValidationError("--signups-per-hour must be 1…1000000") }
        guard notifyInterval >= 0, notifyInterval <= 7 * 24 * 60 else { throw ValidationError("--notify-interval must be 0…10080 minutes") }
        guard vapidSubject.hasPrefix("mailto:") || vapidSubject.hasPrefix("https://") else {
            throw ValidationError("--vapid-subject must start with mailto: or https://")
        }
        for (flag, value) in [("--sentinel-silent-after", sentinelSilentAfter), ("--sentinel-quiet-radio-after", sentinelQuietRadioAfter),
                              ("--sentinel-outbox-age", sentinelOutboxAge), ("--sentinel-clock-offset", sentinelClockOffset),
                              ("--sentinel-sweep-interval", sentinelSweepInterval)] {
            guard value.isFinite, value >= 1, value <= 7 * 86400 else { throw ValidationError("\(flag) must be 1…604800 seconds") }
        }
        guard allowShortSilence || sentinelSilentAfter >= SentinelHeartbeat.shortestSilence else {
            throw ValidationError("--sentinel-silent-after \(sentinelSilentAfter.formatted()) is shorter than a healthy sentinel's gaps between heartbeats (once a minute, up to 66 s apart): it would turn silent and back between two of them, with a mail each way; give at least \(Int(SentinelHeartbeat.shortestSilence)) seconds")
        }
        guard sentinelAlertAfter.isFinite, (0...10080).contains(sentinelAlertAfter) else { throw ValidationError("--sentinel-alert-after must be 0…10080 minutes") }
        if !operatorEmail.isEmpty, smtpURL == nil { throw ValidationError("--operator-email needs --smtp-url: the alerts are mailed") }
        for address in operatorEmail where !MailAddress.isPlausible(address) {
            throw ValidationError("--operator-email '\(address)' is not an e-mail address")
        }
        guard (1...100).contains(reportsPerClient) else { throw ValidationError("--reports-per-client must be 1…100 a day") }
        guard (1...10_000).contains(reportBreakerPerHour) else { throw ValidationError("--report-breaker-per-hour must be 1…10000") }
        guard (1...3650).contains(sealedRetentionDays) else { throw ValidationError("--sealed-retention-days must be 1…3650") }
        guard sentinelDiskFree.isFinite, (0...100).contains(sentinelDiskFree) else { throw ValidationError("--sentinel-disk-free must be 0…100 percent") }
        _ = try checkedPublicURL()
        _ = try mailOptions()
        _ = try tiles()
        if servesThePublic, !reportsWithoutOperatorMail, operatorEmail.isEmpty || smtpURL == nil {
            throw ValidationError("a report of a tag hidden on someone seals a bike at once and must reach the operator at once: give --operator-email ADDRESS and --smtp-url (the reports are mailed), or --reports-without-operator-mail to take them unmailed (then watch `bikebeacon-server abuse list` or the dashboard's Network page)")
        }
    }

    /// A server others reach (a `--public-url`, or listening beyond loopback): it takes reports only with an operator mail route.
    var servesThePublic: Bool {
        publicURL != nil || !["127.0.0.1", "::1", "localhost"].contains(host)
    }

    func run() async throws {
        let logger = Logger(label: "bikebeacon-server")
        let db = try await database.open(logger: logger)
        logger.info("database ready", metadata: ["database": "\(db.url)"])
        let options = try serverOptions(logger: logger)
        do {
            let app = try await BikebeaconServer.makeApplication(database: db, options: options, logger: logger)
            try await app.runService()
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            await db.shutdown()
            throw PortInUse(host: host, port: port)
        } catch {
            await db.shutdown()
            throw error
        }
        await db.shutdown()
    }
}

/// NIO's own words ("bind(descriptor:ptr:bytes:): Address already in use") name neither the
/// address nor what to do.
struct PortInUse: Error, CustomStringConvertible {
    var host: String
    var port: Int
    var description: String {
        "cannot listen on \(host):\(port): another program already has that port (another bikebeacon-server still running?); stop it, or give another --port"
    }
}

extension Serve {
    /// `--public-url` without a trailing slash, checked; nil when not given.
    func checkedPublicURL() throws -> String? {
        guard let publicURL else { return nil }
        guard let url = URL(string: publicURL), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host?.isEmpty == false,
              url.query == nil, url.fragment == nil else {
            throw ValidationError("--public-url '\(publicURL)' must be an absolute http or https URL (scheme, host and an optional path)")
        }
        return publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL
    }

    /// The `--trusted-proxy` blocks, checked.
    func trustedProxies() throws -> TrustedProxies {
        do {
            return try TrustedProxies(parsing: trustedProxy)
        } catch {
            throw ValidationError("--trusted-proxy \(error.description)")
        }
    }

    /// The email settings from the flags; nil without --smtp-url.
    func mailOptions() throws -> MailOptions? {
        guard let smtpURL else {
            if requireVerifiedEmail { throw ValidationError("--require-verified-email needs --smtp-url to mail the links") }
            if mailFrom != nil || smtpCAFile != nil { throw ValidationError("--mail-from and --smtp-ca-file need --smtp-url") }
            return nil
        }
        let smtp: SMTPURL
        do {
            smtp = try SMTPURL(parsing: smtpURL)
        } catch {
            throw ValidationError("--smtp-url: \(error)")
        }
        let fromText = mailFrom ?? "bikebeacon <bikebeacon@\(smtp.host)>"
        guard let from = MailAddress(parsing: fromText) else {
            throw ValidationError("--mail-from '\(fromText)' is not an address; give ADDRESS or 'Name <ADDRESS>'")
        }
        let link = try checkedPublicURL() ?? "http://\(host):\(port)"
        var tls = TLSConfiguration.makeClientConfiguration()
        if let smtpCAFile {
            do {
                tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(smtpCAFile))
            } catch {
                throw ValidationError("--smtp-ca-file '\(smtpCAFile)' holds no readable PEM certificate: \(error)")
            }
        }
        return MailOptions(smtp: smtp, from: from, publicURL: link, tls: tls)
    }
}
