import BikebeaconAPI
import SQLKit

/// Share links in the database. The token is stored only as its digest (`Tokens`), so a leaked
/// database opens no shared page; the owner sees the link once, when it is made.
struct ShareStore: Sendable {
    let database: Database

    static let prefix = "bbl_"
    static let maxHours = 720
    static let maxLabelLength = 200
    /// Active links one bike may have: enough for the police, insurer and a few friends, few enough
    /// that the owner can keep track of who can follow the bike.
    static let maxActivePerBike = 10

    static let tooMany = APIError(.conflict, "share_limit",
        "this bike has \(maxActivePerBike) active share links already; revoke one you no longer need (or let it expire) first")

    /// A share link found by its token, and whether it still opens.
    struct Resolved: Sendable {
        var share: Share
        var ownerID: String
    }

    /// Makes a link for the owner's bike; nil when the bike is not theirs.
    func create(bikeID: String, owner: String, request: ShareRequest, now: Int64) async throws -> Share? {
        let id = Tokens.id()
        let token = Tokens.make(prefix: Self.prefix)
        let expires = now + Int64(request.expiresIn) * 3_600_000
        let lock = database.flavor == .postgres ? " FOR UPDATE" : ""
        return try await database.transaction { db in
            // The bike's row lock serialises concurrent creates on PostgreSQL (SQLite has one writer), so the cap holds.
            guard try await db.raw("SELECT id FROM bikes WHERE id = \(bind: bikeID) AND owner_id = \(bind: owner)\(unsafeRaw: lock)").first() != nil
            else { return nil }
            let active = try await db.raw("""
                SELECT COUNT(*) AS n FROM shares WHERE bike_id = \(bind: bikeID) AND revoked_ms IS NULL AND expires_ms > \(bind: now)
                """).first()?.decode(column: "n", as: Int.self) ?? 0
            guard active < Self.maxActivePerBike else { throw Self.tooMany }
            try await db.raw("""
                INSERT INTO shares (id, bike_id, token_hash, label, include_notes, created_ms, expires_ms, revoked_ms, views, last_viewed_ms)
                VALUES (\(bind: id), \(bind: bikeID), \(bind: Tokens.digest(token)), \(bind: request.label ?? ""),
                  \(bind: request.includeNotes == true ? 1 : 0), \(bind: now), \(bind: expires), NULL, 0, NULL)
                """).run()
            var share = Share(id: id, bikeId: bikeID, label: request.label ?? "", includeNotes: request.includeNotes == true,
                              createdAt: Timestamp.format(milliseconds: now), expiresAt: Timestamp.format(milliseconds: expires),
                              revokedAt: nil, status: "active", views: 0, lastViewedAt: nil)
            share.token = token
            return share
        }
    }

    /// The owner's links for one bike (or all their bikes), newest first, expired and revoked ones too.
    func list(owner: String, bikeID: String?, now: Int64) async throws -> [Share] {
        try await database.withSession { db in
            let rows: [any SQLRow]
            if let bikeID {
                rows = try await db.raw("""
                    SELECT s.*, b.sealed_case FROM shares s JOIN bikes b ON b.id = s.bike_id
                    WHERE b.owner_id = \(bind: owner) AND s.bike_id = \(bind: bikeID) ORDER BY s.created_ms DESC, s.id
                    """).all()
            } else {
                rows = try await db.raw("""
                    SELECT s.*, b.sealed_case FROM shares s JOIN bikes b ON b.id = s.bike_id
                    WHERE b.owner_id = \(bind: owner) ORDER BY s.created_ms DESC, s.id
                    """).all()
            }
            return try rows.map { try Self.share($0, now: now) }
        }
    }

    /// Revokes a link at once; false when it is not one of the owner's links for this bike.
    func revoke(id: String, bikeID: String, owner: String, now: Int64) async throws -> Bool {
        try await database.transaction { db in
            guard try await db.raw("""
                SELECT s.id FROM shares s JOIN bikes b ON b.id = s.bike_id
                WHERE s.id = \(bind: id) AND s.bike_id = \(bind: bikeID) AND b.owner_id = \(bind: owner)
                """).first() != nil else { return false }
            try await db.raw("UPDATE shares SET revoked_ms = COALESCE(revoked_ms, \(bind: now)) WHERE id = \(bind: id)").run()
            return true
        }
    }

    /// Revokes every link of the bike that still works (the bike was recovered, or a report's case was closed).
    static func revokeAll(bikeID: String, now: Int64, in db: any SQLDatabase) async throws {
        try await db.raw("UPDATE shares SET revoked_ms = \(bind: now) WHERE bike_id = \(bind: bikeID) AND revoked_ms IS NULL").run()
    }

    /// The link this token opens, whatever its status; nil for a token the server never issued.
    func resolve(token: String, now: Int64) async throws -> Resolved? {
        guard token.hasPrefix(Self.prefix), token.count <= 100 else { return nil }
        return try await database.withSession { db in
            guard let row = try await db.raw("""
                SELECT s.*, b.owner_id, b.sealed_case FROM shares s JOIN bikes b ON b.id = s.bike_id WHERE s.token_hash = \(bind: Tokens.digest(token))
                """).first() else { return nil }
            return Resolved(share: try Self.share(row, now: now), ownerID: try row.decode(column: "owner_id", as: String.self))
        }
    }

    /// Counts one opening of the shared page, for the owner's list.
    func countView(id: String, now: Int64) async throws {
        try await database.withSession { db in
            try await db.raw("UPDATE shares SET views = views + 1, last_viewed_ms = \(bind: now) WHERE id = \(bind: id)").run()
        }
    }

    static func share(_ row: any SQLRow, now: Int64) throws -> Share {
        let expires = try row.decode(column: "expires_ms", as: Int64.self)
        let revoked = try row.decode(column: "revoked_ms", as: Int64?.self)
        let sealed = try row.decode(column: "sealed_case", as: String?.self) != nil
        return Share(
            id: try row.decode(column: "id", as: String.self),
            bikeId: try row.decode(column: "bike_id", as: String.self),
            label: try row.decode(column: "label", as: String.self),
            includeNotes: try row.decode(column: "include_notes", as: Int.self) != 0,
            createdAt: Timestamp.format(milliseconds: try row.decode(column: "created_ms", as: Int64.self)),
            expiresAt: Timestamp.format(milliseconds: expires),
            revokedAt: revoked.map { Timestamp.format(milliseconds: $0) },
            // A report's seal pauses a link (#43), without revoking it: it opens again when the report is released.
            status: revoked != nil ? "revoked" : expires <= now ? "expired" : sealed ? "paused" : "active",
            views: try row.decode(column: "views", as: Int.self),
            lastViewedAt: try row.decode(column: "last_viewed_ms", as: Int64?.self).map { Timestamp.format(milliseconds: $0) })
    }
}
