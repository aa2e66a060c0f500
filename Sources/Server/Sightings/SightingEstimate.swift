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
/// clock: the query reads by stamp `window` plus twice `ownClockTolerance` back from the newest stamp (no
/// stamp is further off than that tolerance, either way), so it holds every sighting the corrected window
/// can; of those, only the ones within `window` of the newest on the server's clock are decoded, and
/// `SightingFusion` keeps to the same window.
struct SightingEstimates: Sendable {
    let database: Database

    /// Sightings this many seconds before the newest are fused with it: a fixed sentinel's minute,
    /// a bus passing a parked bike a few times.
    static let window = 300.0
    /// How much further back than `window` the query reads by stamp: two stamps can be this far apart on the
    /// sentinels' clocks and still be `window` apart on the server's.
    static let reach = 2 * SentinelHeartbeat.ownClockTolerance
    /// At most this many sightings are read for one estimate.
    static let limit = 500

    func estimate(bikeID: String, for audience: SightingPrivacy.Audience) async throws -> PositionEstimate? {
        try await database.withSession { try await Self.estimate(bikeID: bikeID, for: audience, in: $0) }
    }

    /// In `db`'s session or transaction: a sighting's event sees the sighting just stored with it.
    static func estimate(bikeID: String, for audience: SightingPrivacy.Audience, in db: any SQLDatabase) async throws -> PositionEstimate? {
        let rows = try await db.raw("""
                SELECT s.*, t.name AS sentinel_name FROM sightings s JOIN sentinels t ON t.id = s.sentinel_id
                WHERE s.bike_id = \(bind: bikeID) AND \(unsafeRaw: SightingSeal.ownerVisible("s"))
                  AND s.time_ms >= (SELECT MAX(v.time_ms) FROM sightings v
                                    WHERE v.bike_id = \(bind: bikeID) AND \(unsafeRaw: SightingSeal.ownerVisible("v")))
                                   - \(bind: Int64((Self.window + Self.reach) * 1000))
                ORDER BY s.time_ms DESC, s.id DESC LIMIT \(bind: Self.limit)
                """).all()
        let sentinels = try rows.map { try $0.decode(column: "sentinel_id", as: String.self) }
        guard !sentinels.isEmpty else { return nil }
        let readings = try await db.raw("SELECT sentinel_id, heartbeat FROM sentinel_health WHERE sentinel_id IN (\(binds: Array(Set(sentinels))))")
            .all().reduce(into: [String: SentinelReading]()) { readings, row in
                readings[try row.decode(column: "sentinel_id", as: String.self)] =
                    SentinelReading(heartbeat: try row.decode(column: "heartbeat", as: String.self))
            }
        // On the server's clock, before the rows are decoded: those the fusion would drop are not.
        let times = try zip(rows, sentinels).map { row, sentinel in
            Double(try row.decode(column: "time_ms", as: Int64.self)) / 1000 - (readings[sentinel]?.stampOffset ?? 0)
        }
        guard let newest = times.max() else { return nil }
        let heard = try rows.indices.filter { times[$0] >= newest - Self.window }.map { index in
            (sighting: try SightingStore.exact(rows[index]),
             home: SightingPrivacy.Home(rawValue: try rows[index].decode(column: "sentinel_home", as: Int.self)) ?? .others,
             reading: readings[sentinels[index]])
        }
        return SightingEstimate.make(heard, for: audience)
    }
}

/// The pure half: exact sightings, each with how to read its sentinel's (nil: as an uncalibrated sentinel's,
/// on the server's clock), in; the estimate as `audience` may see it out, at the newest sighting's server time.
enum SightingEstimate {
    static func make(_ heard: [(sighting: SightingRecord, home: SightingPrivacy.Home, reading: SentinelReading?)],
                     for audience: SightingPrivacy.Audience) -> PositionEstimate? {
        let fusing = heard.compactMap { item -> FusionSighting? in
            let s = item.sighting
            guard let time = Timestamp.parse(s.time) else { return nil }
            return FusionSighting(sentinel: s.sentinel, time: Double(time) / 1000, clockOffset: item.reading?.stampOffset,
                                  latitude: s.latitude, longitude: s.longitude, accuracy: s.fix == "gps" ? s.accuracy : nil,
                                  rssi: Double(s.rssi), calibration: item.reading?.calibration(rssi: s.rssi, distance: s.distance) ?? .none,
                                  othersHome: audience.hides(item.home))
        }
        guard let newest = fusing.map(\.serverTime).max(),
              let fused = SightingFusion.fuse(fusing, now: newest, window: SightingEstimates.window + 0.001) else { return nil }
        let at = Timestamp.format(milliseconds: Int64((newest * 1000).rounded()))
        guard !fused.othersHome else {
            // No finer than the hidden sentinel's grid: the snapped point, at least the grid's radius, no name.
            let point = SightingPrivacy.snapped(latitude: fused.latitude, longitude: fused.longitude)
            let radius90 = max(fused.radius90, SightingPrivacy.gridAccuracy)
            return PositionEstimate(
                latitude: point.latitude, longitude: point.longitude, radius50: max(fused.radius50, SightingPrivacy.gridAccuracy),
                radius90: radius90, sources: fused.sources.count, at: at,
                words: PositionEstimate.words(radius: radius90, place: coordinates(point.latitude, point.longitude), sources: fused.sources.count))
        }
        let latitude = SightingPrivacy.rounded(fused.latitude), longitude = SightingPrivacy.rounded(fused.longitude)
        return PositionEstimate(latitude: latitude, longitude: longitude, radius50: (fused.radius50 * 10).rounded() / 10,
                                radius90: (fused.radius90 * 10).rounded() / 10, sources: fused.sources.count, at: at,
                                words: words(fused, fixed: heard.map(\.sighting).filter { $0.fix == nil && fused.sources.contains($0.sentinel) }))
    }

    /// Named after the nearest fixed sentinel that contributed when the point is within its radius90 of
    /// it, with the radius grown by that distance so it still holds around the sentinel; else coordinates.
    static func words(_ fused: FusedEstimate, fixed: [SightingRecord]) -> String {
        let frame = LocalFrame(latitude: fused.latitude, longitude: fused.longitude)
        let nearest = fixed.compactMap { s -> (name: String, metres: Double)? in
            guard let lat = s.latitude, let lon = s.longitude else { return nil }
            return (s.sentinel, frame.point(latitude: lat, longitude: lon).distance(to: PlanePoint(x: 0, y: 0)))
        }.min { $0.metres < $1.metres }
        guard let nearest, nearest.metres <= fused.radius90 else {
            return PositionEstimate.words(radius: fused.radius90,
                                          place: coordinates(SightingPrivacy.rounded(fused.latitude), SightingPrivacy.rounded(fused.longitude)),
                                          sources: fused.sources.count)
        }
        return PositionEstimate.words(radius: fused.radius90 + nearest.metres, place: nearest.name, sources: fused.sources.count)
    }

    static func coordinates(_ latitude: Double, _ longitude: Double) -> String {
        "\(SightingRecord.degrees(latitude)), \(SightingRecord.degrees(longitude))"
    }
}
