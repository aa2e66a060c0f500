#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a fix's receivers' places span. Only a plane tells the point and a shift common to every level apart: from one
/// place the tag is somewhere on a ring around it, from a line on either side of it, and there a weak level says as
/// well that the tag is far as that it is weak.
public enum PlaceSpan: Sendable, Equatable {
    /// One place: one receiver, or two sentinels in one cafe.
    case point
    /// Two places, or more along one line (a row of shops down a street).
    case line
    /// Places around a plane.
    case plane

    /// Measured across and along the places' own axis (their scatter's principal one): a place further than `within`
    /// across it makes a plane; else places spread further than `within` along it make a line.
    public init(_ places: [PlanePoint], within: Double) {
        let count = Double(max(places.count, 1))
        let mean = PlanePoint(x: places.reduce(0) { $0 + $1.x } / count, y: places.reduce(0) { $0 + $1.y } / count)
        var (xx, xy, yy) = (0.0, 0.0, 0.0)
        for place in places {
            let dx = place.x - mean.x, dy = place.y - mean.y
            xx += dx * dx
            xy += dx * dy
            yy += dy * dy
        }
        let angle = atan2(2 * xy, xx - yy) / 2
        let (cosine, sine) = (cos(angle), sin(angle))
        var along = (least: 0.0, most: 0.0)
        for place in places {
            let dx = place.x - mean.x, dy = place.y - mean.y
            guard abs(dy * cosine - dx * sine) <= within else {
                self = .plane
                return
            }
            let distance = dx * cosine + dy * sine
            along = (min(along.least, distance), max(along.most, distance))
        }
        self = along.most - along.least > within ? .line : .point
    }
}
