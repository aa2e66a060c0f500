#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How fast something moves, from its places over time: the slope of a least-squares line through
/// them. Its standard error says how much of that speed the places' scatter alone could make.
public struct Motion: Sendable, Equatable {
    /// Metres a second.
    public var speed: Double
    /// Of each coordinate of the velocity.
    public var standardError: Double
    /// Of the scatter the standard error comes from: two coordinates, each with a mean and a slope fitted.
    public var degreesOfFreedom: Double

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
        degreesOfFreedom = 2 * n - 4
        let scatter = squares / degreesOfFreedom
        speed = (velocity.x * velocity.x + velocity.y * velocity.y).squareRoot()
        standardError = (scatter / tt).squareRoot()
    }

    /// The speed less what the scatter alone would make, standing still, only `falseAlarm` of the
    /// time: 0 or less, and the places do not show motion. Standing still, speed² ÷ standardError²
    /// is twice an F(2, degreesOfFreedom) variable, whose tail is (1 + 2f/d)^(−d/2); so few places
    /// ask for a far larger margin than many (three: 14 standard errors for 1 %; many: 3).
    public func leastSpeed(falseAlarm: Double) -> Double {
        let d = degreesOfFreedom
        return speed - (d * (pow(falseAlarm, -2 / d) - 1)).squareRoot() * standardError
    }
}
