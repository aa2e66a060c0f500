import BikebeaconAPI
import Foundation

/// Sightings as CSV (for spreadsheets) and GeoJSON (for maps). Pure.
enum SightingExport {
    static let csvHeader = ["id", "time", "event", "zone", "rssi", "distance", "latitude", "longitude", "sentinel",
                            "uuid", "major", "minor", "firstSeen", "lastSeen", "receivedAt", "accuracy", "fixTime", "fix", "heldForReview"]

    static func csv(_ sightings: [SightingRecord]) -> String {
        var lines = [csvHeader.joined(separator: ",")]
        for s in sightings {
            let fields = [s.id, s.time, s.event, s.zone, String(s.rssi), s.distance.map { String($0) } ?? "",
                          s.latitude.map { String($0) } ?? "", s.longitude.map { String($0) } ?? "", s.sentinel, s.beacon.uuid.uuidString,
                          String(s.beacon.major), String(s.beacon.minor), s.firstSeen, s.lastSeen, s.receivedAt,
                          s.accuracy.map { String($0) } ?? "", s.fixTime ?? "", s.fix ?? "", s.heldForReview == true ? "true" : ""]
            lines.append(fields.map(field).joined(separator: ","))
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// RFC 4180 quoting; a leading formula character is defused so a sentinel name cannot run in a spreadsheet.
    static func field(_ value: String) -> String {
        var value = value
        if let first = value.first, "=+-@".contains(first), Double(value) == nil { value = "'" + value }
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    struct FeatureCollection: Encodable {
        var type = "FeatureCollection"
        var features: [Feature]
    }

    struct Feature: Encodable {
        var type = "Feature"
        /// Null (GeoJSON's "unlocated feature") when a roaming sentinel had no fix.
        var geometry: Point?
        var properties: Properties

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(type, forKey: .type)
            try c.encode(geometry, forKey: .geometry)
            try c.encode(properties, forKey: .properties)
        }

        enum CodingKeys: String, CodingKey { case type, geometry, properties }
    }

    /// A sighting's fields, or the estimate's.
    enum Properties: Encodable {
        case sighting(SightingRecord)
        case estimate(EstimateProperties)

        func encode(to encoder: any Encoder) throws {
            switch self {
            case let .sighting(record): try record.encode(to: encoder)
            case let .estimate(properties): try properties.encode(to: encoder)
            }
        }
    }

    /// The estimate's feature: its radii in metres under the names map tools read as lengths.
    struct EstimateProperties: Encodable {
        var kind = "estimate"
        var radius50_m: Double
        var radius90_m: Double
        var sources: Int
        var at: String
        var words: String
        /// Metres a second, when on the move; absent when parked.
        var speed_m_s: Double?
    }

    struct Point: Encodable {
        var type = "Point"
        /// GeoJSON order: longitude, latitude.
        var coordinates: [Double]
    }

    /// The sightings, then the bike's position estimate when there is one (`SightingEstimates`), its kind `estimate`.
    static func geoJSON(_ sightings: [SightingRecord], estimate: PositionEstimate? = nil) throws -> [UInt8] {
        let located = estimate.map { e in
            Feature(geometry: Point(coordinates: [e.longitude, e.latitude]), properties: .estimate(EstimateProperties(
                radius50_m: e.radius50, radius90_m: e.radius90, sources: e.sources, at: e.at, words: e.words, speed_m_s: e.speed)))
        }
        let collection = FeatureCollection(features: sightings.map { sighting in
            var point: Point?
            if let latitude = sighting.latitude, let longitude = sighting.longitude { point = Point(coordinates: [longitude, latitude]) }
            return Feature(geometry: point, properties: .sighting(sighting))
        } + (located.map { [$0] } ?? []))
        return Array(try JSONResponse.encoder.encode(collection))
    }
}
