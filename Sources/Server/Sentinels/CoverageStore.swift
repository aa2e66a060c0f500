import BikebeaconAPI
import SQLKit

/// An owner's coverage view of one bike (`BikeCoverage`): the public sentinels around the place it
/// was last heard, whether they listen now, and when they did not while it was missing. Home
/// sentinels are never read here, so no name or place of one can leak through this view; a public one
/// is named (with its distance and gaps) only if its host opted in to the coverage map, and otherwise only
/// counted (#43). The place itself is the last sighting as the reader may see it (`SightingPrivacy`).
struct CoverageStore: Sendable {
    let database: Database

    /// The coverage of the owner's bike, as `audience` may see it; nil when the bike is not theirs.
    func coverage(bikeID: String, owner: String, audience: SightingPrivacy.Audience, now: Int64) async throws -> BikeCoverage? {
        try await database.withSession { db in
            guard let bike = try await db.raw("""
                SELECT missing_since_ms FROM bikes WHERE id = \(bind: bikeID) AND owner_id = \(bind: owner)
                """).first() else { return nil }
            let missingSince = try bike.decode(column: "missing_since_ms", as: Int64?.self)
            let empty = BikeCoverage(place: nil, radiusMetres: Int(SentinelCoverage.radiusMetres),
                                     missingSince: missingSince.map { Timestamp.format(milliseconds: $0) }, listening: 0, sentinels: [])
            guard let row = try await db.raw("""
                SELECT s.*, t.name AS sentinel_name FROM sightings s JOIN sentinels t ON t.id = s.sentinel_id
                WHERE s.bike_id = \(bind: bikeID) AND (s.fix IS NULL OR s.fix <> 'none') AND \(unsafeRaw: SightingSeal.ownerVisible("s"))
                ORDER BY s.time_ms DESC, s.id DESC LIMIT 1
                """).first() else { return empty }
            let last = try SightingStore.sighting(row, for: audience)
            guard let latitude = last.latitude, let longitude = last.longitude else { return empty }
            let place = CoveragePlace(latitude: latitude, longitude: longitude, accuracy: last.accuracy, time: last.time, sentinel: last.sentinel)
            var sentinels: [(distance: Double, entry: CoverageSentinel)] = []
            var unnamed = 0, unnamedListening = 0
            for near in try await Self.publicSentinels(around: latitude, longitude, in: db) {
                let distance = SentinelCoverage.metres(latitude: latitude, longitude: longitude, to: near.latitude, near.longitude)
                guard distance <= SentinelCoverage.radiusMetres else { continue }
                guard near.onMap else {
                    unnamed += 1
                    if near.state == .listening { unnamedListening += 1 }
                    continue
                }
                var gaps: [SentinelCoverage.Gap] = []
                if let missingSince {
                    let start = max(missingSince, near.created)
                    gaps = SentinelCoverage.gaps(transitions: try await Self.transitions(near.id, from: start, to: now, in: db),
                                                 from: start, now: now)
                }
                sentinels.append((distance, CoverageSentinel(
                    name: near.name, distanceMetres: Int((distance / 10).rounded()) * 10, state: near.state.rawValue,
                    notListening: gaps.map { CoverageGap(from: Timestamp.format(milliseconds: $0.from),
                                                         until: $0.until.map { Timestamp.format(milliseconds: $0) }, state: $0.state.rawValue) })))
            }
            let nearestFirst = sentinels.sorted { ($0.distance, $0.entry.name) < ($1.distance, $1.entry.name) }.map(\.entry)
            return BikeCoverage(place: place, radiusMetres: empty.radiusMetres, missingSince: empty.missingSince,
                                listening: nearestFirst.filter { $0.state == SentinelState.listening.rawValue }.count, sentinels: nearestFirst,
                                unnamed: unnamed, unnamedListening: unnamedListening)
        }
    }

    private struct Near {
        var id: String
        var name: String
        var latitude: Double
        var longitude: Double
        var created: Int64
        var state: SentinelState
        /// Its host agreed to the coverage map: it may be named.
        var onMap: Bool
    }

    /// Enrolled public sentinels at a fixed place inside the box around the point, with their recorded state and opt-in.
    private static func publicSentinels(around latitude: Double, _ longitude: Double, in db: any SQLDatabase) async throws -> [Near] {
        let box = SentinelCoverage.box(latitude: latitude, longitude: longitude, metres: SentinelCoverage.radiusMetres)
        let rows = try await db.raw("""
            SELECT s.id, s.name, s.latitude, s.longitude, s.created_ms, s.on_coverage_map, h.state FROM sentinels s
            LEFT JOIN sentinel_health h ON h.sentinel_id = s.id
            WHERE s.revoked_ms IS NULL AND s.home = 0 AND s.owner_id IS NULL AND s.roaming = 0
              AND s.latitude BETWEEN \(bind: box.latitude.lowerBound) AND \(bind: box.latitude.upperBound)
              AND s.longitude BETWEEN \(bind: box.longitude?.lowerBound ?? -180) AND \(bind: box.longitude?.upperBound ?? 180)
            """).all()
        return try rows.map { row in
            // Never heard from: silent, as the operator's view and the metrics count it.
            let stored = try row.decode(column: "state", as: String?.self) ?? SentinelState.silent.rawValue
            guard let state = SentinelState(rawValue: stored) else { throw StorageError.corruptRow("sentinel_health.state") }
            return Near(id: try row.decode(column: "id", as: String.self), name: try row.decode(column: "name", as: String.self),
                        latitude: try row.decode(column: "latitude", as: Double.self),
                        longitude: try row.decode(column: "longitude", as: Double.self),
                        created: try row.decode(column: "created_ms", as: Int64.self), state: state,
                        onMap: try row.decode(column: "on_coverage_map", as: Int.self) != 0)
        }
    }

    /// The sentinel's transitions that matter for the span: the last one at or before `start` (its
    /// state then) and every one after it up to `now`.
    private static func transitions(_ id: String, from start: Int64, to now: Int64, in db: any SQLDatabase) async throws -> [SentinelTransition] {
        let before = try await db.raw("""
            SELECT from_state, to_state, reason, at_ms FROM sentinel_transitions
            WHERE sentinel_id = \(bind: id) AND at_ms <= \(bind: start) ORDER BY at_ms DESC, id DESC LIMIT 1
            """).all()
        let during = try await db.raw("""
            SELECT from_state, to_state, reason, at_ms FROM sentinel_transitions
            WHERE sentinel_id = \(bind: id) AND at_ms > \(bind: start) AND at_ms <= \(bind: now) ORDER BY at_ms, id
            """).all()
        return try (before + during).map(SentinelHealthStore.transitionRow)
    }
}
