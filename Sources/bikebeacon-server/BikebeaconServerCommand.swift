import ArgumentParser
import Foundation
import Logging
import Mail
import NIOSSL
import Server

@main
struct BikebeaconServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bikebeacon-server",
        abstract: "The bikebeacon server: owners, bikes, the missing list and sightings over HTTP.",
        subcommands: [Serve.self, Sentinels.self, Backup.self, Restore.self])
}

/// `--database URL`, shared by every subcommand.
struct DatabaseOption: ParsableArguments {
    @Option(name: .long, help: "sqlite:///path/file.sqlite, sqlite://./relative.sqlite or postgres://user:pass@host:port/db")
    var database: String = DatabaseURL.defaultText

    func open(logger: Logger) async throws -> Server.Database {
        let url: DatabaseURL
        do {
            url = try DatabaseURL(parsing: database)
        } catch {
            throw ValidationError(error.description)
        }
        return try await BikebeaconServer.openDatabase(url, logger: logger, now: ServerOptions.wallClock())
    }

    /// Opens the database for one CLI action and always closes it; store errors become usage errors.
    func with<R>(_ body: (Server.Database) async throws -> R) async throws -> R {
        let db = try await open(logger: Logger(label: "bikebeacon-server"))
        do {
            let result = try await body(db)
            await db.shutdown()
            return result
        } catch let error as SentinelError {
            await db.shutdown()
            throw ValidationError(error.description)
        } catch {
            await db.shutdown()
            throw error
        }
    }
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve the HTTP API.")

    @Option(help: "Address to listen on.") var host = "127.0.0.1"
    @Option(help: "Port to listen on.") var port = 8080
    @OptionGroup var database: DatabaseOption
    @Option(help: "Sighting batches per second each sentinel may send (shared by every server on the database).") var sentinelRate: Double = 10
    @Option(help: "bcrypt cost for new passwords (4…31).") var bcryptCost: UInt8 = 12
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

    func validate() throws {
        guard (4...31).contains(bcryptCost) else { throw ValidationError("--bcrypt-cost must be 4…31") }
        guard sentinelRate > 0 else { throw ValidationError("--sentinel-rate must be positive") }
        guard notifyInterval >= 0, notifyInterval <= 7 * 24 * 60 else { throw ValidationError("--notify-interval must be 0…10080 minutes") }
        guard vapidSubject.hasPrefix("mailto:") || vapidSubject.hasPrefix("https://") else {
            throw ValidationError("--vapid-subject must start with mailto: or https://")
        }
        _ = try mailOptions()
        _ = try tiles()
    }

    func tiles() throws -> MapTiles {
        do {
            return try MapTiles(template: mapTiles, attribution: mapAttribution)
        } catch {
            throw ValidationError("--map-tiles: \(error.description)")
        }
    }

    func run() async throws {
        let logger = Logger(label: "bikebeacon-server")
        let db = try await database.open(logger: logger)
        logger.info("database \(db.url) ready")
        var options = ServerOptions(host: host, port: port, bcryptCost: bcryptCost,
                                    sentinelRateLimit: RateLimit(perSecond: sentinelRate, burst: sentinelRate * 3),
                                    notifyIntervalMilliseconds: Int64(notifyInterval * 60_000),
                                    allowPrivateTargets: allowPrivateTargets, vapidSubject: vapidSubject)
        options.mail = try mailOptions()
        options.requireVerifiedEmail = requireVerifiedEmail
        if let mail = options.mail { logger.info("email through \(mail.smtp) from \(mail.from.address), links to \(mail.publicURL)") }
        options.mapTiles = try tiles()
        options.leafletDirectory = leafletDirectory
        do {
            let app = try await BikebeaconServer.makeApplication(database: db, options: options, logger: logger)
            try await app.runService()
        } catch {
            await db.shutdown()
            throw error
        }
        await db.shutdown()
    }
}

extension Serve {
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
        let link = publicURL ?? "http://\(host):\(port)"
        guard let url = URL(string: link), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host?.isEmpty == false else {
            throw ValidationError("--public-url '\(link)' must be an absolute http or https URL")
        }
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

struct Sentinels: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Enrol, list, rotate and revoke sentinels.", subcommands: [Add.self, List.self, Rotate.self, Revoke.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Enrol a sentinel; prints its token as the last line.")
        @Option var name: String
        // `.unconditional`: a negative value such as `-0.12` is the value, not another option.
        @Option(parsing: .unconditional, help: "Where the sentinel stands; its sightings are placed here.") var latitude: Double
        @Option(parsing: .unconditional) var longitude: Double
        @OptionGroup var database: DatabaseOption

        func run() async throws {
            let (sentinel, token) = try await database.with { db in
                try await SentinelStore(database: db).add(name: name, latitude: latitude, longitude: longitude, now: ServerOptions.wallClock())
            }
            print("enrolled sentinel '\(sentinel.name)' at \(sentinel.latitude), \(sentinel.longitude); its token (shown once):")
            print(token)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List sentinels.")
        @OptionGroup var database: DatabaseOption

        func run() async throws {
            let sentinels = try await database.with { try await SentinelStore(database: $0).list() }
            print("name\tlatitude\tlongitude\tstatus")
            for s in sentinels {
                print("\(s.name)\t\(s.latitude)\t\(s.longitude)\t\(s.revokedMilliseconds == nil ? "active" : "revoked")")
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a sentinel: its token stops working at once.")
        @Argument var name: String
        @OptionGroup var database: DatabaseOption

        func run() async throws {
            try await database.with { try await SentinelStore(database: $0).revoke(name: name, now: ServerOptions.wallClock()) }
            print("revoked sentinel '\(name)'")
        }
    }
}
