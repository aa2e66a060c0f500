import SQLKit

/// Who read a bike's sightings, when, by which route and from which client address (#35, #43): the owner's
/// API, dashboard and exports, the account export, the bike's coverage (it carries the newest place), the live
/// event stream (each missing bike when it opens, and each sighting it delivers), a share link's page and API,
/// the theft report. For the operator's abuse
/// cases (`bikebeacon-server reads`): a tag hidden on a person is followed by reading its sightings.
///
/// At most one row per bike, reader and route in each minute (`bucket`), so a dashboard polling every
/// few seconds writes once a minute; replicas agree through the primary key. Rows outlive the bike and
/// the account (no foreign keys) and are pruned after `retention`.
struct ReadLog: Sendable {
    let database: Database

    /// Six months: an abuse case is raised within weeks, and a client address is not kept for good.
    static let retention: Int64 = 180 * MissingPeriod.day
    static let bucket: Int64 = 60_000

    /// Who read: a signed-in account, or whoever holds a share link.
    enum Reader: Sendable, Equatable {
        case account(String)
        case share(String)

        var key: String {
            switch self {
            case .account(let id): "account:" + id
            case .share(let id): "share:" + id
            }
        }
    }

    /// The routes that read sightings, as the log names them.
    enum Route: String, Sendable, CaseIterable {
        case sightings = "GET /v1/bikes/{id}/sightings"
        case sightingsCSV = "GET /v1/bikes/{id}/sightings?format=csv"
        case sightingsGeoJSON = "GET /v1/bikes/{id}/sightings?format=geojson"
        case report = "GET /v1/bikes/{id}/report"
        case sharePage = "GET /s/{token}"
        case shared = "GET /v1/shared/{token}"
        case events = "GET /v1/events"
        case coverage = "GET /v1/bikes/{id}/coverage"
        case export = "GET /v1/account/export"
    }

    /// Logs one read, unless this reader already read this bike by this route in the same minute.
    func record(bikeID: String, owner: String, reader: Reader, route: Route, client: String, now: Int64) async throws {
        try await database.withSession { db in
            let inserted = try await db.raw("""
                INSERT INTO sighting_reads (bike_id, owner_id, reader, route, client, bucket, time_ms)
                VALUES (\(bind: bikeID), \(bind: owner), \(bind: reader.key), \(bind: route.rawValue), \(bind: client),
                  \(bind: now / Self.bucket), \(bind: now))
                ON CONFLICT DO NOTHING RETURNING bike_id
                """).first() != nil
            if inserted {
                try await db.raw("DELETE FROM sighting_reads WHERE time_ms < \(bind: now - Self.retention)").run()
            }
        }
    }
}
