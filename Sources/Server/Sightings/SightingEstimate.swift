import BikebeaconAPI
import Locating
import SQLKit

/// A bike's position estimate from the sightings its owner may see (never a sealed one: the same
/// `SightingSeal.ownerVisible` condition as the owner's sightings page), those within `window` of
/// the newest on the server's clock, fused by `SightingFusion` (#44). The fusing uses the exact places; what `audience`
/// sees is then cut as `SightingPrivacy` cuts a sighting.
///
/// Each sentinel's latest heartbeat says how to read its sightings (`SentinelReading`): how far its stamps
/// are off the server's clock, and whether its distances rest on a calibration. The window is on the server's
/// clock: the query reads by stamp back from the newest stamp's server time by `window` plus `reach` (no stamp is
/// further off than `ownClockTolerance`, either way), so it holds every sighting the corrected window can, and
/// `SightingFusion` keeps those within `window` of the newest on the server's clock.
struct SightingEstimates: Sendable {
    let database: Database

    /// Sightings this many seconds before the newest are fused with it: a fixed sentinel's minute,
    /// a bus passing a parked bike a few times.
    static let window = 300.0
    /// How much further back than `window` the query reads by stamp, from the newest stamp's server time: the newest
    /// server time is no earlier than that, and a sighting within `window` of it was stamped at most this much before
    /// its own server time. (From the newest stamp itself it took twice this: 54 rows read for 30 fused.)
    static let reach = SentinelHeartbeat.ownClockTolerance
    /// At most this many sightings are read for one estimate.
    static let limit = SightingFusion.mostSightings

    /// `sightings_bike_time`, holding every column of `sightings` that `estimates` reads, so a bike's window is read
    /// from the index alone, its rows side by side, rather than one table page a row. The owners' pages walk its
    /// leading columns as before. `include`: PostgreSQL's INCLUDE, which keeps the extra columns out of the key.
    static func coveringIndex(include: Bool) -> String {
        let key = "bike_id, time_ms, id", carried = "sealed_case, sentinel_id, rssi, distance, latitude, longitude, fix, accuracy_m, sentinel_home"
        return "CREATE INDEX sightings_bike_time ON sightings (\(key)\(include ? ") INCLUDE (" : ", ")\(carried))"
    }

    func estimate(bikeID: String, for audience: SightingPrivacy.Audience) async throws -> PositionEstimate? {
        try await database.withSession { try await Self.estimates(bikeIDs: [bikeID], for: audience, in: $0)[bikeID] }
    }

    /// In `db`'s session or transaction: a sighting's event sees the sighting just stored with it. One plain query for
    /// all of `bikeIDs` (a batch's bikes: SQLiteNIO prepares every statement anew, and each query hops to SQLite's
    /// thread and back, so these are paid once a batch rather than once a bike): the columns the fusion reads,
    /// each with its sentinel's name and reading (`SentinelReading+Columns`), of each bike's visible rows within
    /// `window` plus `reach` by stamp of its newest visible stamp's server time (found walking `sightings_bike_time`
    /// back from the bike's row; a MAX with the seal's condition read every sighting the bike ever had). The rows
    /// come from that index alone (`coveringIndex`), in its order for each bike: ordered by `s.bike_id` rather than
    /// `b.id`, SQLite sorted them (`bikebeacon-bench ingest-estimate`). Reading each sentinel once in a second query
    /// instead of joining it to every row saved as much in SQLite as the second query cost. A CTE that drew the
    /// server-clock line in SQL took three times as long to prepare as this query (a window function, two and a half);
    /// so the line is drawn here, on one column a row (`server_ms`), and only rows within `window` of the newest on the server's
    /// clock (and a millisecond: the fusion draws the exact line) are decoded whole. The LIMIT is a literal: SQLite
    /// (3.54) marks a bound LIMIT to be prepared again when it is bound, which SQLiteNIO's prepare-then-bind always
    /// does, so a bound one costs a second prepare.
    static func estimates(bikeIDs: Set<String>, for audience: SightingPrivacy.Audience,
                          in db: any SQLDatabase) async throws -> [String: PositionEstimate] {
        guard !bikeIDs.isEmpty else { return [:] }
        let ids = bikeIDs.sorted()
        let rows = try await db.raw("""
                SELECT s.bike_id, t.name, s.time_ms, s.rssi, s.distance, s.latitude, s.longitude, s.fix, s.accuracy_m, s.sentinel_home,
                  \(unsafeRaw: SentinelReading.columns.map { "h.\($0)" }.joined(separator: ", ")),
                  s.time_ms - COALESCE(h.stamp_offset_s, 0) * 1000 AS server_ms
                FROM bikes b JOIN sightings s ON s.bike_id = b.id JOIN sentinels t ON t.id = s.sentinel_id
                  LEFT JOIN sentinel_health h ON h.sentinel_id = s.sentinel_id
                WHERE b.id IN (\(binds: ids)) AND \(unsafeRaw: SightingSeal.ownerVisible("s"))
                  AND s.time_ms >= (SELECT v.time_ms - COALESCE(vh.stamp_offset_s, 0) * 1000 FROM sightings v
                                      LEFT JOIN sentinel_health vh ON vh.sentinel_id = v.sentinel_id
                                    WHERE v.bike_id = b.id AND \(unsafeRaw: SightingSeal.ownerVisible("v"))
                                    ORDER BY v.time_ms DESC LIMIT 1) - \(bind: Int64((Self.window + Self.reach) * 1000))
                ORDER BY b.id DESC, s.time_ms DESC, s.id DESC LIMIT \(literal: Self.limit * ids.count)
                """).all()
        // One bike's crowded window may have cut another's short: then each bike on its own, with all it may have.
        if ids.count > 1, rows.count == Self.limit * ids.count {
            var each: [String: PositionEstimate] = [:]
            for id in ids { each[id] = try await estimates(bikeIDs: [id], for: audience, in: db)[id] }
            return each
        }
        var byBike: [String: [any SQLRow]] = [:]
        for row in rows { byBike[try row.decode(column: "bike_id", as: String.self), default: []].append(row) }
        return try byBike.compactMapValues { try estimate(newestFirst: $0.prefix(Self.limit), for: audience) }
    }

    /// One bike's rows, newest stamp first.
    private static func estimate(newestFirst rows: ArraySlice<any SQLRow>, for audience: SightingPrivacy.Audience) throws -> PositionEstimate? {
        let stamped = try rows.map { row in (row: row, serverTime: try row.decode(column: "server_ms", as: Double.self)) }
        guard let newest = stamped.map(\.serverTime).max() else { return nil }
        let from = newest - Self.window * 1000 - 1
        return SightingEstimate.make(try stamped.filter { $0.serverTime >= from }.map { try HeardSighting(row: $0.row) }, for: audience)
    }
}

/// The pure half: the exact sightings in; the estimate as `audience` may see it out, at the newest sighting's
/// server time.
enum SightingEstimate {
    static func make(_ heard: [HeardSighting], for audience: SightingPrivacy.Audience) -> PositionEstimate? {
        let fusing = heard.map { s in
            FusionSighting(sentinel: s.sentinel, time: Double(s.time) / 1000, clockOffset: s.reading?.stampOffset,
                           latitude: s.latitude, longitude: s.longitude, accuracy: s.gpsAccuracy, rssi: Double(s.rssi),
                           calibration: s.reading?.calibration(rssi: s.rssi, distance: s.distance) ?? .none, othersHome: audience.hides(s.home))
        }
        guard let newest = fusing.map(\.serverTime).max(),
              var fused = SightingFusion.fuse(fusing, now: newest, window: SightingEstimates.window + 0.001) else { return nil }
        let at = Timestamp.format(milliseconds: Int64((newest * 1000).rounded()))
        // Rounded once, so the words say the speed the API gives.
        fused.speed = fused.speed.map { ($0 * 10).rounded() / 10 }
        guard !fused.othersHome else {
            // No finer than the hidden sentinel's grid: the snapped point, at least the grid's radius, no name.
            let point = SightingPrivacy.snapped(latitude: fused.latitude, longitude: fused.longitude)
            let radius90 = max(fused.radius90, SightingPrivacy.gridAccuracy)
            return PositionEstimate(
                latitude: point.latitude, longitude: point.longitude, radius50: max(fused.radius50, SightingPrivacy.gridAccuracy),
                radius90: radius90, sources: fused.sources.count, at: at,
                words: PositionEstimate.words(radius: radius90, place: coordinates(point.latitude, point.longitude), sources: fused.sources.count,
                                              speed: fused.speed),
                speed: fused.speed)
        }
        let latitude = SightingPrivacy.rounded(fused.latitude), longitude = SightingPrivacy.rounded(fused.longitude)
        let sources = Set(fused.sources)
        return PositionEstimate(latitude: latitude, longitude: longitude, radius50: (fused.radius50 * 10).rounded() / 10,
                                radius90: (fused.radius90 * 10).rounded() / 10, sources: fused.sources.count, at: at,
                                words: words(fused, fixed: heard.filter { $0.enrolled && sources.contains($0.sentinel) }), speed: fused.speed)
    }

    /// Named after the nearest fixed sentinel that contributed when the point is within its radius90 of
    /// it, with the radius grown by that distance so it still holds around the sentinel; else coordinates.
    static func words(_ fused: FusedEstimate, fixed: [HeardSighting]) -> String {
        let frame = LocalFrame(latitude: fused.latitude, longitude: fused.longitude)
        let nearest = fixed.compactMap { s -> (name: String, metres: Double)? in
            guard let lat = s.latitude, let lon = s.longitude else { return nil }
            return (s.sentinel, frame.point(latitude: lat, longitude: lon).distance(to: PlanePoint(x: 0, y: 0)))
        }.min { $0.metres < $1.metres }
        guard let nearest, nearest.metres <= fused.radius90 else {
            return PositionEstimate.words(radius: fused.radius90,
                                          place: coordinates(SightingPrivacy.rounded(fused.latitude), SightingPrivacy.rounded(fused.longitude)),
                                          sources: fused.sources.count, speed: fused.speed)
        }
        return PositionEstimate.words(radius: fused.radius90 + nearest.metres, place: nearest.name, sources: fused.sources.count, speed: fused.speed)
    }

    static func coordinates(_ latitude: Double, _ longitude: Double) -> String {
        "\(SightingRecord.degrees(latitude)), \(SightingRecord.degrees(longitude))"
    }
}
