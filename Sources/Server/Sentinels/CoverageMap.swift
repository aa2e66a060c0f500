import BikebeaconAPI
import Hummingbird
import SQLKit

/// Which sentinels may be on the owners' coverage map. Pure.
///
/// Only a public sentinel at a fixed place whose host agreed: a home sentinel stands at someone's
/// home (`SightingPrivacy`), a roaming one has no place to show, a retired one listens nowhere.
/// Off by default: the map shows a cafe's place to every account, so the host decides, not the
/// operator's habit of copying a command line.
enum CoverageMapRules {
    /// Why the sentinel cannot be put on the map, or nil when it can.
    static func refusal(name: String, roaming: Bool, home: Bool, revoked: Bool) -> String? {
        if home { return "'\(name)' is a home sentinel: it never appears on the coverage map" }
        if roaming { return "'\(name)' is a roaming sentinel: it has no place to show on the coverage map" }
        if revoked { return "'\(name)' was revoked: it no longer listens anywhere" }
        return nil
    }
}

/// `GET /v1/network/coverage`: where the network listens, for any signed-in account (an owner
/// deciding where to park; a sentinel's token gets 403). Positions to 4 decimals, as everywhere public.
enum CoverageMapRoutes {
    static func add(to router: RouterGroup<AppContext>, state: ServerState) {
        router.get("/v1/network/coverage") { _, context in
            _ = try context.owner()
            return try JSONResponse.make(CoverageMap(sentinels: try await sentinels(in: state.database)))
        }
    }

    /// The opted-in public sentinels at a fixed place, by name. The query itself leaves out home,
    /// roaming and revoked sentinels, whatever their flag says.
    static func sentinels(in database: Database) async throws -> [CoverageMapSentinel] {
        try await database.withSession { db in
            try await db.raw("""
                SELECT s.name, s.latitude, s.longitude, h.state FROM sentinels s
                LEFT JOIN sentinel_health h ON h.sentinel_id = s.id
                WHERE s.on_coverage_map = 1 AND s.revoked_ms IS NULL AND s.home = 0 AND s.owner_id IS NULL AND s.roaming = 0
                ORDER BY s.name
                """).all().map { row in
                CoverageMapSentinel(name: try row.decode(column: "name", as: String.self),
                                    latitude: SightingPrivacy.rounded(try row.decode(column: "latitude", as: Double.self)),
                                    longitude: SightingPrivacy.rounded(try row.decode(column: "longitude", as: Double.self)),
                                    listening: try row.decode(column: "state", as: String?.self) == SentinelState.listening.rawValue)
            }
        }
    }
}
