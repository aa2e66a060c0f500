#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Local east/north metres around a reference latitude and longitude, and back: how the server
/// puts sentinels given in degrees into the plane the locator works in.
///
/// Equirectangular: a degree of longitude is shortened by cos(reference latitude). Within a few
/// kilometres of the reference (a city) this is off by well under a metre, far below what RSSI
/// can tell; it does not hold across poles or the antimeridian.
public struct LocalFrame: Sendable, Equatable {
    public var latitude: Double
    public var longitude: Double

    /// Mean Earth radius, metres (IUGG).
    static let earthRadius = 6_371_008.8

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    private var metresPerRadianEast: Double { Self.earthRadius * cos(latitude * .pi / 180) }

    /// East and north metres of a place from the reference.
    public func point(latitude: Double, longitude: Double) -> PlanePoint {
        var east = longitude - self.longitude
        if east > 180 { east -= 360 } else if east < -180 { east += 360 }
        return PlanePoint(x: east * .pi / 180 * metresPerRadianEast, y: (latitude - self.latitude) * .pi / 180 * Self.earthRadius)
    }

    /// The latitude and longitude of a point in this frame.
    public func coordinates(of point: PlanePoint) -> (latitude: Double, longitude: Double) {
        var longitude = self.longitude + point.x / metresPerRadianEast * 180 / .pi
        if longitude > 180 { longitude -= 360 } else if longitude < -180 { longitude += 360 }
        return (latitude + point.y / Self.earthRadius * 180 / .pi, longitude)
    }
}
