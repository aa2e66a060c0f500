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
        var properties: SightingRecord

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(type, forKey: .type)
            try c.encode(geometry, forKey: .geometry)
            try c.encode(properties, forKey: .properties)
        }

        enum CodingKeys: String, CodingKey { case type, geometry, properties }
    }

    struct Point: Encodable {
        var type = "Point"
        /// GeoJSON order: longitude, latitude.
        var coordinates: [Double]
    }

    static func geoJSON(_ sightings: [SightingRecord]) throws -> [UInt8] {
        let collection = FeatureCollection(features: sightings.map { sighting in
            var point: Point?
            if let latitude = sighting.latitude, let longitude = sighting.longitude { point = Point(coordinates: [longitude, latitude]) }
            return Feature(geometry: point, properties: sighting)
        })
        return Array(try JSONResponse.encoder.encode(collection))
    }
}
