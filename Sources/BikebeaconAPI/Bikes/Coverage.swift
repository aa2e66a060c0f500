/// `GET /v1/bikes/{id}/coverage` (and `coverage` on a shared page): who listens around the place the
/// bike was last heard, so "not heard since Tuesday" has a meaning. Only public sentinels count:
/// a home sentinel is never listed, a retired (revoked) one is gone.
public struct BikeCoverage: Codable, Sendable, Equatable {
    /// The last sighting with a position, as this reader may see it; absent when the bike has none
    /// (then there is no place to speak of, and `sentinels` is empty).
    public var place: CoveragePlace?
    /// How far around `place` sentinels count, metres.
    public var radiusMetres: Int
    /// Since when the gaps are counted; absent when the bike is not missing (then none are listed).
    public var missingSince: String?
    /// How many of `sentinels` are listening now.
    public var listening: Int
    /// Public sentinels within `radiusMetres` of `place` whose hosts put them on the coverage map, nearest first.
    public var sentinels: [CoverageSentinel]
    /// Other public sentinels within `radiusMetres`: their hosts did not opt in to the map, so they are only counted,
    /// never named or placed.
    public var unnamed: Int
    /// How many of `unnamed` are listening now.
    public var unnamedListening: Int

    public init(place: CoveragePlace?, radiusMetres: Int, missingSince: String?, listening: Int, sentinels: [CoverageSentinel],
                unnamed: Int = 0, unnamedListening: Int = 0) {
        self.place = place
        self.radiusMetres = radiusMetres
        self.missingSince = missingSince
        self.listening = listening
        self.sentinels = sentinels
        self.unnamed = unnamed
        self.unnamedListening = unnamedListening
    }
}

/// Where the bike was last heard.
public struct CoveragePlace: Codable, Sendable, Equatable {
    public var latitude: Double
    public var longitude: Double
    /// Metres: a roaming sentinel's fix, or the ~500 m grid a private sentinel's place is snapped to.
    public var accuracy: Double?
    /// When that sighting was made.
    public var time: String
    /// The sentinel that heard it, as this reader may see it ("a private sentinel").
    public var sentinel: String

    public init(latitude: Double, longitude: Double, accuracy: Double?, time: String, sentinel: String) {
        self.latitude = latitude
        self.longitude = longitude
        self.accuracy = accuracy
        self.time = time
        self.sentinel = sentinel
    }
}

/// One public sentinel near the place: its state now and when it was not listening while the bike was missing.
public struct CoverageSentinel: Codable, Sendable, Equatable {
    public var name: String
    /// From the place, metres, to the nearest 10.
    public var distanceMetres: Int
    /// `listening`, `degraded` or `silent`, as the server last recorded it (silent when it never sent a heartbeat).
    public var state: String
    /// Oldest first; empty when it listened throughout (or the bike is not missing).
    public var notListening: [CoverageGap]

    public init(name: String, distanceMetres: Int, state: String, notListening: [CoverageGap]) {
        self.name = name
        self.distanceMetres = distanceMetres
        self.state = state
        self.notListening = notListening
    }
}

/// A stretch in which a sentinel was not listening ("Cafe Rosa: not listening 21:05–23:40").
public struct CoverageGap: Codable, Sendable, Equatable {
    public var from: String
    /// Absent while it lasts.
    public var until: String?
    /// `silent` if it was silent at any time in the stretch, else `degraded`.
    public var state: String

    public init(from: String, until: String?, state: String) {
        self.from = from
        self.until = until
        self.state = state
    }
}

/// `GET /v1/network/coverage`: where the network listens. Only public sentinels at a fixed place
/// whose host agreed to be on the map (`sentinels add … --on-coverage-map`); never a home, roaming
/// or retired sentinel.
public struct CoverageMap: Codable, Sendable, Equatable {
    /// By name.
    public var sentinels: [CoverageMapSentinel]

    public init(sentinels: [CoverageMapSentinel]) {
        self.sentinels = sentinels
    }
}

/// One sentinel on the coverage map: its place (4 decimals, about 10 m) and whether it listens now.
public struct CoverageMapSentinel: Codable, Sendable, Equatable {
    public var name: String
    public var latitude: Double
    public var longitude: Double
    /// Listening now; false while degraded or silent (and before its first heartbeat).
    public var listening: Bool

    public init(name: String, latitude: Double, longitude: Double, listening: Bool) {
        self.name = name
        self.latitude = latitude
        self.longitude = longitude
        self.listening = listening
    }
}
