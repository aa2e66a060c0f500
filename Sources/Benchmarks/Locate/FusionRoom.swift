import Locating

/// The server's fusion on real rows: philotuxo's tracks (12 fixed receivers in a room, one tag
/// carried, camera ground truth) read as the server reads sightings. At each of the locator's fixes
/// (`FixGrouping`), each receiver's level is one uncalibrated fixed sentinel's sighting at its place
/// in degrees, and `SightingFusion` makes the estimate the owner would see. The city's levels follow
/// the model; these miss it as real rooms do, so a point or a radius that only holds on the model shows here.
extension FusionBench {
    public struct RoomTrack: Sendable {
        public var name: String
        public var estimates: Int
        public var medianError: Double
        /// The loudest receiver's place: a pin per sighting.
        public var loudestMedianError: Double
        public var inside90: Double
        public var inside50: Double
    }

    /// One estimate: its error and the loudest receiver's, metres, and its radii.
    private typealias Scored = (error: Double, loudest: Double, radius50: Double, radius90: Double)

    /// One row a track, and one over all tracks' estimates together (named "all").
    public static func room(_ data: PhilotuxoPositions, configuration: LocatorConfiguration = .init()) -> [RoomTrack] {
        let frame = LocalFrame(latitude: 52.09, longitude: 5.12)
        let places = data.sensors.map { frame.coordinates(of: PlanePoint(x: $0.x, y: $0.y)) }
        var all: [Scored] = []
        var rows: [RoomTrack] = []
        for track in data.tracks {
            var scored: [Scored] = []
            for (group, truth) in LocateBench.fixes(data.sensors.map(\.id), configuration, track) {
                let sightings = group.levels.map { level in
                    FusionSighting(sentinel: data.sensors[level.receiver].id, time: group.time, latitude: places[level.receiver].latitude,
                                   longitude: places[level.receiver].longitude, rssi: level.rssi)
                }
                guard let estimate = SightingFusion.fuse(sightings, now: group.time, window: configuration.longestWindow, configuration: configuration),
                      let loudest = group.levels.max(by: { $0.rssi < $1.rssi }) else { continue }
                let sensor = data.sensors[loudest.receiver]
                scored.append((frame.point(latitude: estimate.latitude, longitude: estimate.longitude).distance(to: truth),
                               PlanePoint(x: sensor.x, y: sensor.y).distance(to: truth), estimate.radius50, estimate.radius90))
            }
            rows.append(summary(track.name, scored))
            all += scored
        }
        return rows + [summary("all", all)]
    }

    private static func summary(_ name: String, _ scored: [Scored]) -> RoomTrack {
        let count = Double(max(1, scored.count))
        return RoomTrack(name: name, estimates: scored.count, medianError: median(scored.map(\.error)), loudestMedianError: median(scored.map(\.loudest)),
                         inside90: Double(scored.filter { $0.error <= $0.radius90 }.count) / count,
                         inside50: Double(scored.filter { $0.error <= $0.radius50 }.count) / count)
    }
}
