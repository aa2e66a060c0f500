import Foundation
import SQLKit

/// What exchanging an enrolment code came to.
public enum EnrolmentOutcome: Sendable, Equatable {
    case enrolled(Sentinel, token: String)
    case unknown
    case used(atMilliseconds: Int64)
    case expired(atMilliseconds: Int64)
    case revoked
    /// `sentinels rotate` replaced the token this code carries since it was issued.
    case superseded
}

/// One-time enrolment codes for sentinels (see `EnrolmentCode`): issued with the token, claimed once.
public struct EnrolmentStore: Sendable {
    let database: Database
    /// How long a code works: a day, enough to carry it to the Pi, short enough that a lost note expires.
    public static let lifetimeMilliseconds: Int64 = 24 * 3_600_000

    public init(database: Database) { self.database = database }

    /// A new code for the sentinel named `name`, carrying `token` (which must be its current one).
    public func issue(sentinel name: String, token: String, now: Int64) async throws -> (code: String, expiresMilliseconds: Int64) {
        let code = EnrolmentCode.make()
        let normalised = EnrolmentCode.normalised(code) ?? code
        let sealed = try EnrolmentCode.seal(token: token, code: normalised)
        let expires = now + Self.lifetimeMilliseconds
        try await database.transaction { db in
            guard let row = try await db.raw("SELECT id FROM sentinels WHERE name = \(bind: name)").first() else {
                throw SentinelError.notFound(name)
            }
            try await db.raw("""
                INSERT INTO sentinel_enrolments (code_hash, sentinel_id, sealed_token, created_ms, expires_ms, used_ms)
                VALUES (\(bind: EnrolmentCode.digest(normalised)), \(bind: try row.decode(column: "id", as: String.self)),
                  \(bind: sealed), \(bind: now), \(bind: expires), NULL)
                """).run()
        }
        return (code, expires)
    }

    /// Claims the code: a compare-and-swap on its `used_ms`, so of two concurrent claims (on any
    /// replica) exactly one gets the token. A revoked sentinel's or a superseded code stays unclaimed.
    public func claim(code text: String, now: Int64) async throws -> EnrolmentOutcome {
        guard let normalised = EnrolmentCode.normalised(text) else { return .unknown }
        let digest = EnrolmentCode.digest(normalised)
        do {
            return try await database.transaction { db in
                guard let claimed = try await db.raw("""
                    UPDATE sentinel_enrolments SET used_ms = \(bind: now)
                    WHERE code_hash = \(bind: digest) AND used_ms IS NULL AND expires_ms > \(bind: now)
                    RETURNING sentinel_id, sealed_token
                    """).first()
                else { return try await Self.whyNot(digest: digest, db: db) }
                let sentinelID = try claimed.decode(column: "sentinel_id", as: String.self)
                guard let row = try await db.raw("""
                    SELECT id, name, latitude, longitude, roaming, created_ms, revoked_ms, owner_id, home, on_coverage_map, token_hash FROM sentinels WHERE id = \(bind: sentinelID)
                    """).first()
                else { throw Refusal(outcome: .unknown) }
                let sentinel = try SentinelStore.sentinel(row)
                guard sentinel.revokedMilliseconds == nil else { throw Refusal(outcome: .revoked) }
                guard let token = EnrolmentCode.open(try claimed.decode(column: "sealed_token", as: String.self), code: normalised),
                      Tokens.digest(token) == (try row.decode(column: "token_hash", as: String.self))
                else { throw Refusal(outcome: .superseded) }
                return .enrolled(sentinel, token: token)
            }
        } catch let refusal as Refusal {
            return refusal.outcome
        }
    }

    /// Rolls the claim back: the code stays as it was, so a second try says the same.
    private struct Refusal: Error { var outcome: EnrolmentOutcome }

    /// Why a code could not be claimed, from its row (nil: never issued).
    private static func whyNot(digest: String, db: any SQLDatabase) async throws -> EnrolmentOutcome {
        guard let row = try await db.raw("""
            SELECT e.used_ms, e.expires_ms, s.revoked_ms FROM sentinel_enrolments e JOIN sentinels s ON s.id = e.sentinel_id
            WHERE e.code_hash = \(bind: digest)
            """).first()
        else { return .unknown }
        return outcome(usedMilliseconds: try row.decode(column: "used_ms", as: Int64?.self),
                       expiresMilliseconds: try row.decode(column: "expires_ms", as: Int64.self),
                       revoked: try row.decode(column: "revoked_ms", as: Int64?.self) != nil)
    }

    /// A code that exists but was not claimed: used first (it did its job), then revoked, then expired.
    static func outcome(usedMilliseconds: Int64?, expiresMilliseconds: Int64, revoked: Bool) -> EnrolmentOutcome {
        if let usedMilliseconds { return .used(atMilliseconds: usedMilliseconds) }
        if revoked { return .revoked }
        return .expired(atMilliseconds: expiresMilliseconds)
    }
}
