/// Where the tag truly was over time (a camera's track, waypoints walked on a clock): each fix is
/// scored against the truth at its own time, on a straight line between the samples either side,
/// as a tag walks between two surveyed moments. Pure.
public struct TruthTrack: Sendable {
    public struct Sample: Sendable, Equatable {
        public var time: Double
        public var point: PlanePoint

        public init(time: Double, point: PlanePoint) {
            self.time = time
            self.point = point
        }
    }

    /// In time order (samples at one time in the order given).
    public let samples: [Sample]

    public init(_ samples: [Sample]) {
        self.samples = samples.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
    }

    /// The truth at `time`; nil before the first sample or after the last, where scoring would guess.
    public func point(at time: Double) -> PlanePoint? {
        // The first sample after `time`, by halving.
        var low = 0, high = samples.count
        while low < high {
            let middle = (low + high) / 2
            if samples[middle].time <= time { low = middle + 1 } else { high = middle }
        }
        guard low > 0 else { return nil }
        let before = samples[low - 1]
        guard low < samples.count else { return before.time == time ? before.point : nil }
        let after = samples[low]
        // Stamps a whole Double range apart make ∞/∞: such a gap says nothing of where between.
        let share = (time - before.time) / (after.time - before.time)
        guard share.isFinite else { return before.point }
        return PlanePoint(x: before.point.x + share * (after.point.x - before.point.x),
                          y: before.point.y + share * (after.point.y - before.point.y))
    }

    /// `fixes`, in their order, against the truth at each one's time; those outside the truth's times are
    /// not scored, only counted.
    public func score(_ fixes: [Fix]) -> (score: FixScore, unscored: Int) {
        var errors: [Double] = [], radii: [(r50: Double, r90: Double)] = []
        for fix in fixes {
            guard let truth = point(at: fix.time) else { continue }
            errors.append(fix.point.distance(to: truth))
            radii.append((fix.radius50, fix.radius90))
        }
        return (FixScore(errors: errors, radii: radii), fixes.count - errors.count)
    }
}
