import Foundation

/// The logic of an owner's coverage view (`CoverageStore`): how far a sentinel is from a place, and
/// when it was not listening in a span of time, from its recorded transitions. Pure.
enum SentinelCoverage {
    /// How far around the bike's last place sentinels count.
    static let radiusMetres = 1000.0

    /// A stretch in which a sentinel was not listening; `until` nil while it lasts.
    struct Gap: Sendable, Equatable {
        var from: Int64
        var until: Int64?
        /// `.silent` if it was silent at any time in the stretch, else `.degraded`.
        var state: SentinelState
    }

    /// When the sentinel was not listening between `start` (the bike went missing, or the sentinel
    /// was enrolled, whichever is later) and `now`. `transitions` in any order; those after `now`
    /// (another replica's clock) are left out. Before its first transition a sentinel had sent no
    /// heartbeat, which the server judges silent (`SentinelHealth.judge`); consecutive degraded
    /// and silent stretches are one gap.
    static func gaps(transitions: [SentinelTransition], from start: Int64, now: Int64) -> [Gap] {
        guard start < now else { return [] }
        let ordered = transitions.enumerated().sorted { ($0.element.atMilliseconds, $0.offset) < ($1.element.atMilliseconds, $1.offset) }
            .map(\.element).filter { $0.atMilliseconds <= now }
        var state = ordered.last { $0.atMilliseconds <= start }?.to ?? .silent
        var gaps: [Gap] = []
        var open: Gap? = state == .listening ? nil : Gap(from: start, until: nil, state: worst(nil, state))
        for transition in ordered where transition.atMilliseconds > start {
            state = transition.to
            if state == .listening {
                // A stretch of no time (two transitions in one millisecond) is no gap.
                if var gap = open, gap.from < transition.atMilliseconds {
                    gap.until = transition.atMilliseconds
                    gaps.append(gap)
                }
                open = nil
            } else if var gap = open {
                gap.state = worst(gap.state, state)
                open = gap
            } else {
                open = Gap(from: transition.atMilliseconds, until: nil, state: worst(nil, state))
            }
        }
        if let open { gaps.append(open) }
        return gaps
    }

    /// Silent outweighs degraded; a retired sentinel is not listening at all, so it counts as silent.
    private static func worst(_ a: SentinelState?, _ b: SentinelState) -> SentinelState {
        a == .silent || b == .silent || b == .retired ? .silent : .degraded
    }

    /// The great-circle distance between two points, metres (haversine on the mean Earth radius).
    static func metres(latitude lat1: Double, longitude lon1: Double, to lat2: Double, _ lon2: Double) -> Double {
        let radians = Double.pi / 180
        let dLat = (lat2 - lat1) * radians
        let dLon = (lon2 - lon1) * radians
        let h = pow(sin(dLat / 2), 2) + cos(lat1 * radians) * cos(lat2 * radians) * pow(sin(dLon / 2), 2)
        return 2 * 6_371_008.8 * asin(min(1, h.squareRoot()))
    }

    /// The latitude and longitude ranges that hold every point within `metres` of a place: the
    /// database's coarse filter before `metres(…)`. Longitude is nil where the box would wrap the
    /// antimeridian or a pole (no filter on it there).
    static func box(latitude: Double, longitude: Double, metres: Double)
        -> (latitude: ClosedRange<Double>, longitude: ClosedRange<Double>?) {
        let degrees = metres / 111_000  // a degree of latitude is at least 110.5 km
        let lat = (latitude - degrees)...(latitude + degrees)
        let scale = cos(max(abs(lat.lowerBound), abs(lat.upperBound)) * .pi / 180)
        guard scale > 0.01, lat.upperBound < 90, lat.lowerBound > -90 else { return (lat, nil) }
        let width = degrees / scale
        guard longitude - width >= -180, longitude + width <= 180 else { return (lat, nil) }
        return (lat, (longitude - width)...(longitude + width))
    }
}
