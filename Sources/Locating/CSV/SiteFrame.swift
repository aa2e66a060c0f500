/// A site's grid with its origin moved among its receivers. A site surveyed on a national grid (UTM
/// northings run to millions of metres) is located as one on its own grid, and every place is given
/// back on the grid it came in; the fit's own bound (`Receiver.farthest`) then limits how far apart
/// the receivers are, not how far they are from the grid's origin.
public struct SiteFrame: Sendable, Equatable {
    /// On the site's grid: the whole metres nearest the middle of the box the receivers' places span.
    public let origin: PlanePoint

    /// A grid's reach, metres: UTM's northings run to 10 000 km; a place beyond this is a unit typo or
    /// not a number one could survey (1e308 squared is infinite).
    public static let reach = 100_000_000.0

    public init(_ receivers: [Receiver]) {
        let places = receivers.compactMap(\.position)
        guard let first = places.first else {
            origin = PlanePoint(x: 0, y: 0)
            return
        }
        var low = first, high = first
        for place in places {
            (low.x, low.y) = (min(low.x, place.x), min(low.y, place.y))
            (high.x, high.y) = (max(high.x, place.x), max(high.y, place.y))
        }
        origin = PlanePoint(x: ((low.x + high.x) / 2).rounded(), y: ((low.y + high.y) / 2).rounded())
    }

    /// The receivers with their places from the origin.
    public func local(_ receivers: [Receiver]) -> [Receiver] {
        receivers.map { receiver in
            var moved = receiver
            moved.position = receiver.position.map { PlanePoint(x: $0.x - origin.x, y: $0.y - origin.y) }
            return moved
        }
    }

    /// A place from the origin, back on the site's grid.
    public func site(_ point: PlanePoint) -> PlanePoint {
        PlanePoint(x: point.x + origin.x, y: point.y + origin.y)
    }
}
