/// How fast something moves, from its places over time: the slope of a least-squares line through
/// them. Its standard error says how much of that speed the places' scatter alone could make.
public struct Motion: Sendable, Equatable {
    /// Metres a second.
    public var speed: Double
    public var standardError: Double

    /// Nil under three places, where one place's jitter would pass for motion, or when all share one time.
    public init?(_ track: [(time: Double, point: PlanePoint)]) {
        guard track.count >= 3 else { return nil }
        let n = Double(track.count)
        var mean = (t: 0.0, x: 0.0, y: 0.0)
        for (time, point) in track {
            mean.t += time / n
            mean.x += point.x / n
            mean.y += point.y / n
        }
        var tt = 0.0, tx = 0.0, ty = 0.0
        for (time, point) in track {
            let dt = time - mean.t
            tt += dt * dt
            tx += dt * (point.x - mean.x)
            ty += dt * (point.y - mean.y)
        }
        guard tt > 0 else { return nil }
        let velocity = (x: tx / tt, y: ty / tt)
        var squares = 0.0
        for (time, point) in track {
            let dt = time - mean.t
            let rx = point.x - mean.x - velocity.x * dt, ry = point.y - mean.y - velocity.y * dt
            squares += rx * rx + ry * ry
        }
        // Two coordinates, each with a mean and a slope fitted.
        let scatter = squares / (2 * n - 4)
        speed = (velocity.x * velocity.x + velocity.y * velocity.y).squareRoot()
        standardError = (scatter / tt).squareRoot()
    }
}
