/// Where a missing bike most likely is, from every sighting of it in the latest window (#44): one
/// point, the radii it lies within half the time and 9 times in 10, how many sentinels it drew on,
/// and the words people read ("within 35 m of Cafe Rosa, 9 times in 10, from 3 sentinels").
public struct PositionEstimate: Codable, Sendable, Equatable {
    public var latitude: Double
    public var longitude: Double
    /// Metres: the bike is within this of the point half the time.
    public var radius50: Double
    /// Metres: 9 times in 10.
    public var radius90: Double
    /// How many sentinels contributed.
    public var sources: Int
    /// The newest sighting it draws on, RFC 3339.
    public var at: String
    /// The estimate in words (`PositionEstimate.words`).
    public var words: String
    /// Metres a second, when its fixed sentinels show the bike on the move; absent when parked.
    public var speed: Double?

    public init(latitude: Double, longitude: Double, radius50: Double, radius90: Double, sources: Int, at: String, words: String,
                speed: Double? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.radius50 = radius50
        self.radius90 = radius90
        self.sources = sources
        self.at = at
        self.words = words
        self.speed = speed
    }

    /// "within 35 m of Cafe Rosa, 9 times in 10, from 3 sentinels": `radius` metres rounded up (a
    /// rounded-down radius would no longer hold), `place` a name or coordinates; with `speed` (m/s),
    /// ", on the move at about 18 km/h". Pure.
    public static func words(radius: Double, place: String, sources: Int, speed: Double? = nil) -> String {
        let metres = max(1, Int(radius.rounded(.up)))
        let moving = speed.map { ", on the move at about \(max(1, Int(($0 * 3.6).rounded()))) km/h" } ?? ""
        return "within \(metres) m of \(place), 9 times in 10, from \(sources) sentinel\(sources == 1 ? "" : "s")\(moving)"
    }
}
