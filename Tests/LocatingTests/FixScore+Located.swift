import Locating

extension FixScore {
    /// Fixes with the truth at the reading that made each, scored as `bikebeacon locate --truth` and the bench score them.
    init(_ located: [(fix: Fix, truth: PlanePoint)]) {
        self.init(errors: located.map { $0.fix.point.distance(to: $0.truth) }, radii: located.map { ($0.fix.radius50, $0.fix.radius90) })
    }
}
