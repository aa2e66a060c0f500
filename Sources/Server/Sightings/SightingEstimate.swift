import BikebeaconAPI
import Locating
import SQLKit

/// A bike's position estimate from the sightings its owner may see (never a sealed one: the same
/// `SightingSeal.ownerVisible` condition as the owner's sightings page), those within `window` of
/// the newest, fused by `SightingFusion` (#44). The fusing uses the exact places; what `audience`
/// sees is then cut as `SightingPrivacy` cuts a sighting.
struct SightingEstimates: Sendable {
    let database: Database

    /// Sightings this many seconds before the newest are fused with it: a fixed sentinel's minute,
    /// a bus passing a parked bike a few times.
    static let window = 300.0
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
                                   - \(bind: Int64(Self.window * 1000))
                ORDER BY s.time_ms DESC, s.id DESC LIMIT \(bind: Self.limit)
                """).all()
        let heard = try rows.map { row in
            (sighting: try SightingStore.exact(row),
             home: SightingPrivacy.Home(rawValue: try row.decode(column: "sentinel_home", as: Int.self)) ?? .others)
        }
        return SightingEstimate.make(heard, for: audience)
    }
}

/// The pure half: exact sightings in, the estimate as `audience` may see it out.
enum SightingEstimate {
    static func make(_ heard: [(sighting: SightingRecord, home: SightingPrivacy.Home)],
                     for audience: SightingPrivacy.Audience) -> PositionEstimate? {
        let fusing = heard.compactMap { item -> FusionSighting? in
            let s = item.sighting
            guard let time = Timestamp.parse(s.time) else { return nil }
            return FusionSighting(sentinel: s.sentinel, time: Double(time) / 1000, latitude: s.latitude, longitude: s.longitude,
                                  accuracy: s.fix == "gps" ? s.accuracy : nil, rssi: Double(s.rssi),
                                  othersHome: audience.hides(item.home))
        }
        guard let newest = fusing.map(\.time).max(),
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
