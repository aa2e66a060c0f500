import ArgumentParser
import BikebeaconAPI
import Server

struct Sentinels: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Enrol, list, rotate and revoke sentinels.", subcommands: [Add.self, List.self, Show.self, Rotate.self, Revoke.self, CoverageMapCommand.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Enrol a sentinel; prints its one-time enrolment code (for `bikebeacon enroll` on the Pi) and its token as the last line.")
        @Option var name: String
        // `.unconditional`: a negative value such as `-0.12` is the value, not another option.
        @Option(parsing: .unconditional, help: "Where the sentinel stands; its sightings are placed here.") var latitude: Double?
        @Option(parsing: .unconditional) var longitude: Double?
        @Flag(help: "A sentinel that moves (a van, a bus): no fixed place; its sightings carry the position its GPS gives.")
        var roaming = false
        @Option(help: "The e-mail of the account whose home sentinel this is: on that owner's request (\"Find my tag\" on the dashboard) it reports the tags it hears for two minutes.")
        var owner: String?
        @Option(help: "The e-mail of whoever hosts the sentinel (the cafe): mailed when it stops listening and when it recovers (needs serve --smtp-url).")
        var hostEmail: String?
        @Flag(help: "Show it on the owners' coverage map (its place and whether it listens), its host having agreed; off by default. Not for a home or roaming sentinel.")
        var onCoverageMap = false
        @Option(help: "When it counts as enrolled (RFC 3339; default now): sightings dated earlier are refused. Set it earlier only to replay a recorded capture (tests, the demo).")
        var enrolledAt: String?
        @OptionGroup var enrolment: EnrolmentOptions
        @OptionGroup var database: DatabaseOption

        func validate() throws {
            try enrolment.validate()
            if roaming {
                guard latitude == nil, longitude == nil else { throw ValidationError("a --roaming sentinel has no fixed place: leave out --latitude and --longitude") }
            } else {
                guard latitude != nil, longitude != nil else { throw ValidationError("give --latitude and --longitude of its place, or --roaming for one that moves") }
            }
            if let enrolledAt, Timestamp.parse(enrolledAt) == nil {
                throw ValidationError("--enrolled-at must be an RFC 3339 time such as 2025-01-01T00:00:00Z")
            }
        }

        func run() async throws {
            let now = ServerOptions.wallClock()
            let (sentinel, token, code) = try await database.with { db in
                let (sentinel, token) = try await SentinelStore(database: db).add(name: name, latitude: latitude, longitude: longitude,
                                                                                  ownerEmail: owner, hostEmail: hostEmail,
                                                                                  onCoverageMap: onCoverageMap, now: enrolledAt.flatMap(Timestamp.parse) ?? now)
                return (sentinel, token, try await EnrolmentStore(database: db).issue(sentinel: sentinel.name, token: token, now: now))
            }
            if let latitude = sentinel.latitude, let longitude = sentinel.longitude {
                print("enrolled sentinel '\(sentinel.name)' at \(latitude), \(longitude)")
            } else {
                print("enrolled roaming sentinel '\(sentinel.name)' (its sightings carry their own position)")
            }
            print(EnrolmentNotice.text(code: code.code, expiresMilliseconds: code.expiresMilliseconds, publicURL: enrolment.publicURL))
            print("its token (shown once; only for setting a sentinel up by hand, in its sentinel.yaml):")
            print(token)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List sentinels with their health: state (listening, degraded, silent, retired), since when, the last heartbeat and why.")
        @OptionGroup var database: DatabaseOption

        func run() async throws {
            let (sentinels, health) = try await database.with { db in
                (try await SentinelStore(database: db).list(), try await SentinelHealthStore(database: db).all())
            }
            let now = ServerOptions.wallClock()
            print(SentinelHealthReport.listHeader)
            for sentinel in sentinels { print(SentinelHealthReport.listLine(sentinel, health[sentinel.id], now: now)) }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "One sentinel's last heartbeat and its last 20 changes of state.")
        @Argument var name: String
        @OptionGroup var database: DatabaseOption

        func run() async throws {
            let lines = try await database.with { db in
                guard let sentinel = try await SentinelStore(database: db).list().first(where: { $0.name == name }) else {
                    throw SentinelError.notFound(name)
                }
                let store = SentinelHealthStore(database: db)
                return SentinelHealthReport.show(sentinel, try await store.all()[sentinel.id],
                                                 transitions: try await store.transitions(sentinelID: sentinel.id), now: ServerOptions.wallClock())
            }
            for line in lines { print(line) }
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

extension Sentinels {
    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Give a sentinel a new token; the old one stops working at once. Prints a one-time enrolment code for it and the token as the last line.")
        @Argument var name: String
        @OptionGroup var enrolment: EnrolmentOptions
        @OptionGroup var database: DatabaseOption

        func validate() throws { try enrolment.validate() }

        func run() async throws {
            let now = ServerOptions.wallClock()
            let (token, code) = try await database.with { db in
                let token = try await SentinelStore(database: db).rotate(name: name)
                return (token, try await EnrolmentStore(database: db).issue(sentinel: name, token: token, now: now))
            }
            print(EnrolmentNotice.text(code: code.code, expiresMilliseconds: code.expiresMilliseconds, publicURL: enrolment.publicURL))
            print("new token for sentinel '\(name)' (shown once; put it in its config and restart it):")
            print(token)
        }
    }
}

extension Sentinels {
    /// `sentinels coverage-map NAME on|off`: the host agreed to be on the owners' coverage map, or changed their mind.
    struct CoverageMapCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "coverage-map",
            abstract: "Put a public sentinel on the owners' coverage map (its host agreed) or take it off.")
        enum Choice: String, ExpressibleByArgument, CaseIterable { case on, off }
        @Argument var name: String
        @Argument(help: "on or off") var choice: Choice
        @OptionGroup var database: DatabaseOption

        func run() async throws {
            try await database.with { try await SentinelStore(database: $0).setCoverageMap(name: name, on: choice == .on) }
            print(choice == .on ? "sentinel '\(name)' is on the coverage map" : "sentinel '\(name)' is off the coverage map")
        }
    }
}

/// `--public-url`, for the enrolment URL and its QR code.
struct EnrolmentOptions: ParsableArguments {
    @Option(help: "Where the Pi reaches this server (as `serve --public-url`), e.g. https://bikes.example.org: prints the enrolment URL and its QR code.")
    var publicURL: String?

    func validate() throws {
        guard let publicURL else { return }
        guard let scheme = publicURL.split(separator: ":").first, ["http", "https"].contains(scheme.lowercased()),
              publicURL.contains("://"), publicURL.count > scheme.count + 3
        else { throw ValidationError("--public-url '\(publicURL)' must be an absolute http or https URL") }
    }
}
