import Foundation
import Mail
import SQLKit

/// An enrolled sentinel: where it stands (every sighting it reports without a position of its own is
/// placed there; nil for a roaming sentinel, which has no fixed place) and whether it was revoked.
public struct Sentinel: Sendable, Equatable, Codable {
    public var id: String
    public var name: String
    public var latitude: Double?
    public var longitude: Double?
    public var createdMilliseconds: Int64
    public var revokedMilliseconds: Int64?
    /// The account whose home sentinel this is (`add --owner`); its place is theirs alone to see.
    public var ownerID: String?
    /// Enrolled as someone's home sentinel: private even after that account is deleted (`ownerID` nil).
    public var home = false
    /// Its host agreed to show it on the owners' coverage map (a public sentinel at a fixed place only).
    public var onCoverageMap = false
}

public enum SentinelError: Error, CustomStringConvertible, Equatable {
    case nameTaken(String)
    case notFound(String)
    case invalid(String)

    public var description: String {
        switch self {
        case let .nameTaken(name): "a sentinel named '\(name)' exists already; pick another name or revoke it first"
        case let .notFound(name): "no sentinel named '\(name)'; 'sentinels list' shows the enrolled ones"
        case let .invalid(why): why
        }
    }
}

/// Sentinels in the database, for the operator's CLI and for token checks.
public struct SentinelStore: Sendable {
    let database: Database

    public init(database: Database) { self.database = database }

    /// Enrols a sentinel and returns it with its token; the token is shown once and stored only as a digest.
    /// Without latitude and longitude it is a roaming sentinel: its sightings carry their own position.
    /// With `ownerEmail` it is that owner's home sentinel: on their request ("Find my tag") it tells them the tags it hears.
    /// With `hostEmail`, whoever hosts it (the cafe) is mailed when it stops listening and when it recovers.
    /// With `onCoverageMap`, its place and whether it listens are on the owners' coverage map; only a
    /// public sentinel at a fixed place may be (`CoverageMapRules`).
    public func add(name: String, latitude: Double?, longitude: Double?, ownerEmail: String? = nil, hostEmail: String? = nil,
                    onCoverageMap: Bool = false, now: Int64) async throws -> (Sentinel, token: String) {
        let name = name.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, name.count <= 100 else { throw SentinelError.invalid("a sentinel needs a name of 1 to 100 characters") }
        guard name.lowercased() != SightingPrivacy.privateName else {
            throw SentinelError.invalid("'\(SightingPrivacy.privateName)' is what others see of a home sentinel; pick another name")
        }
        guard (latitude == nil) == (longitude == nil) else {
            throw SentinelError.invalid("give both latitude and longitude for a sentinel at a fixed place, or neither for a roaming one")
        }
        if let latitude, !(latitude.isFinite && (-90...90).contains(latitude)) { throw SentinelError.invalid("latitude must be between -90 and 90") }
        if let longitude, !(longitude.isFinite && (-180...180).contains(longitude)) { throw SentinelError.invalid("longitude must be between -180 and 180") }
        let host = hostEmail?.trimmingCharacters(in: .whitespaces).lowercased()
        if let host, !MailAddress.isPlausible(host) { throw SentinelError.invalid("'\(host)' is not an e-mail address (the host's contact)") }
        if onCoverageMap, let refusal = CoverageMapRules.refusal(name: name, roaming: latitude == nil, home: ownerEmail != nil, revoked: false) {
            throw SentinelError.invalid(refusal)
        }
        let token = Tokens.make(prefix: Tokens.sentinelPrefix)
        let id = Tokens.id()
        let ownerID = try await database.transaction { db in
            guard try await db.raw("SELECT id FROM sentinels WHERE name = \(bind: name)").first() == nil else {
                throw SentinelError.nameTaken(name)
            }
            var owner: String?
            if let ownerEmail {
                let email = ownerEmail.trimmingCharacters(in: .whitespaces).lowercased()
                owner = try await db.raw("SELECT id FROM accounts WHERE email = \(bind: email)").first()?.decode(column: "id", as: String.self)
                guard owner != nil else {
                    throw SentinelError.invalid("no account with the e-mail '\(email)'; the owner signs up on the dashboard first")
                }
            }
            // A roaming sentinel's place columns (NOT NULL since the first schema) hold 0 and are never read.
            try await db.raw("""
                INSERT INTO sentinels (id, name, token_hash, latitude, longitude, roaming, revoked_ms, created_ms, owner_id, host_email, home,
                  on_coverage_map)
                VALUES (\(bind: id), \(bind: name), \(bind: Tokens.digest(token)), \(bind: latitude ?? 0),
                  \(bind: longitude ?? 0), \(bind: latitude == nil ? 1 : 0), NULL, \(bind: now), \(bind: owner), \(bind: host),
                  \(bind: owner == nil ? 0 : 1), \(bind: onCoverageMap ? 1 : 0))
                """).run()
            return owner
        }
        return (Sentinel(id: id, name: name, latitude: latitude, longitude: longitude, createdMilliseconds: now,
                         revokedMilliseconds: nil, ownerID: ownerID, home: ownerID != nil, onCoverageMap: onCoverageMap), token)
    }

    public func list() async throws -> [Sentinel] {
        try await database.withSession { db in
            try await db.raw("SELECT id, name, latitude, longitude, roaming, created_ms, revoked_ms, owner_id, home, on_coverage_map FROM sentinels ORDER BY name").all().map(Self.sentinel)
        }
    }

    /// Revokes the sentinel: its token stops working at once. Its past sightings stay.
    /// Its health turns retired.
    public func revoke(name: String, now: Int64) async throws {
        let id = try await database.transaction { db in
            guard let row = try await db.raw("SELECT id FROM sentinels WHERE name = \(bind: name)").first() else {
                throw SentinelError.notFound(name)
            }
            try await db.raw("UPDATE sentinels SET revoked_ms = \(bind: now) WHERE name = \(bind: name) AND revoked_ms IS NULL").run()
            return try row.decode(column: "id", as: String.self)
        }
        try await SentinelHealthStore(database: database).retire(sentinelID: id, now: now)
    }

    /// Puts the sentinel on the owners' coverage map or takes it off (its host agreed, or changed their mind).
    public func setCoverageMap(name: String, on: Bool) async throws {
        try await database.transaction { db in
            guard let row = try await db.raw("SELECT id, name, latitude, longitude, roaming, created_ms, revoked_ms, owner_id, home, on_coverage_map FROM sentinels WHERE name = \(bind: name)").first() else {
                throw SentinelError.notFound(name)
            }
            let sentinel = try Self.sentinel(row)
            if on, let refusal = CoverageMapRules.refusal(name: name, roaming: sentinel.latitude == nil, home: sentinel.home,
                                                          revoked: sentinel.revokedMilliseconds != nil) {
                throw SentinelError.invalid(refusal)
            }
            try await db.raw("UPDATE sentinels SET on_coverage_map = \(bind: on ? 1 : 0) WHERE id = \(bind: sentinel.id)").run()
        }
    }

    /// Issues a new token and voids the old one at once (a leaked config, a stolen SD card); the
    /// sentinel keeps its name, place and sightings.
    public func rotate(name: String) async throws -> String {
        let token = Tokens.make(prefix: Tokens.sentinelPrefix)
        try await database.transaction { db in
            guard let row = try await db.raw("SELECT revoked_ms FROM sentinels WHERE name = \(bind: name)").first() else {
                throw SentinelError.notFound(name)
            }
            guard try row.decode(column: "revoked_ms", as: Int64?.self) == nil else {
                throw SentinelError.invalid("sentinel '\(name)' was revoked; enrol it again with 'sentinels add'")
            }
            try await db.raw("UPDATE sentinels SET token_hash = \(bind: Tokens.digest(token)) WHERE name = \(bind: name)").run()
        }
        return token
    }

    func find(tokenDigest: String) async throws -> Sentinel? {
        try await database.withSession { db in
            try await db.raw("SELECT id, name, latitude, longitude, roaming, created_ms, revoked_ms, owner_id, home, on_coverage_map FROM sentinels WHERE token_hash = \(bind: tokenDigest)")
                .first().map(Self.sentinel)
        }
    }

    static func sentinel(_ row: any SQLRow) throws -> Sentinel {
        let roaming = try row.decode(column: "roaming", as: Int.self) != 0
        return Sentinel(id: try row.decode(column: "id", as: String.self),
                 name: try row.decode(column: "name", as: String.self),
                 latitude: roaming ? nil : try row.decode(column: "latitude", as: Double.self),
                 longitude: roaming ? nil : try row.decode(column: "longitude", as: Double.self),
                 createdMilliseconds: try row.decode(column: "created_ms", as: Int64.self),
                 revokedMilliseconds: try row.decode(column: "revoked_ms", as: Int64?.self),
                 ownerID: try row.decode(column: "owner_id", as: String?.self),
                 home: try row.decode(column: "home", as: Int.self) != 0,
                 onCoverageMap: try row.decode(column: "on_coverage_map", as: Int.self) != 0)
    }
}
