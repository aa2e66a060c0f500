import SQLKit

/// What an estimate reads of one sighting: no more than the fusion and its words need.
struct HeardSighting: Sendable {
    /// The sentinel's name (unique).
    var sentinel: String
    /// The sentinel's stamp, epoch milliseconds on its clock.
    var time: Int64
    var rssi: Int
    var distance: Double?
    /// Nil when the sentinel had no place.
    var latitude: Double?
    var longitude: Double?
    /// A roaming sentinel's GPS accuracy, metres; nil for a fixed sentinel's enrolled place.
    var gpsAccuracy: Double?
    /// At a fixed sentinel's enrolled place: the estimate may be named after it.
    var enrolled: Bool
    var home: SightingPrivacy.Home
    /// Nil: read as an uncalibrated sentinel's, on the server's clock.
    var reading: SentinelReading?
}

extension HeardSighting {
    /// From `SightingEstimates.estimates`' row. `fix` is nil at the enrolled place, "gps", or "none" (no place).
    init(row: any SQLRow) throws {
        let fix = try row.decodeOptional(column: "fix", as: String.self)
        let placed = fix != "none"
        self.init(sentinel: try row.decode(column: "name", as: String.self), time: try row.decode(column: "time_ms", as: Int64.self),
                  rssi: try row.decode(column: "rssi", as: Int.self), distance: try row.decodeOptional(column: "distance", as: Double.self),
                  latitude: placed ? try row.decode(column: "latitude", as: Double.self) : nil,
                  longitude: placed ? try row.decode(column: "longitude", as: Double.self) : nil,
                  gpsAccuracy: fix == "gps" ? try row.decodeOptional(column: "accuracy_m", as: Double.self) : nil, enrolled: fix == nil,
                  home: SightingPrivacy.Home(rawValue: try row.decode(column: "sentinel_home", as: Int.self)) ?? .others,
                  reading: try SentinelReading(row: row))
    }
}
