/// radius50 and radius90 as multiples of a fit's spread: quantiles of error ÷ spread where the truth
/// was known (radius90's drawn a little above 90 %, for a site the constants never saw).
public struct RadiusScale: Sendable, Equatable {
    public var radius50: Double
    public var radius90: Double

    public init(radius50: Double, radius90: Double) {
        self.radius50 = radius50
        self.radius90 = radius90
    }
}
