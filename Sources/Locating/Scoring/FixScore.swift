import Proximity

/// How fixes fared against the truth: their errors, and how often the truth lay within their radii
/// (`bikebeacon locate --truth`, and the bench on philotuxo).
public struct FixScore: Sendable {
    public var fixes: Int
    public var median: Double
    public var p90: Double
    /// Share of fixes whose truth lies within radius50 / radius90; nil for methods with no radius.
    public var inside50: Double?
    public var inside90: Double?
    public var medianRadius90: Double?
    /// How far from 50 % and 90 % a radius that holds exactly could still land on these fixes
    /// (95 %, binomial over the effective number of fixes: one fix's miss makes the next likely,
    /// so n(1-ρ)/(1+ρ), ρ the lag-1 correlation of inside-or-not). A 20-fix track can miss
    /// 40-60 % by chance alone.
    public var chance50: Double?
    public var chance90: Double?

    /// `errors` in metres, in the fixes' order (the chance bands read one fix's miss against the next's).
    public init(errors: [Double], radii: [(r50: Double, r90: Double)]? = nil) {
        let sorted = errors.sorted()
        fixes = errors.count
        median = sorted.isEmpty ? .nan : RSSISummary.quantile(sorted, 0.5)
        p90 = sorted.isEmpty ? .nan : RSSISummary.quantile(sorted, 0.9)
        if let radii, !errors.isEmpty {
            inside50 = Double(zip(errors, radii).filter { $0 <= $1.r50 }.count) / Double(errors.count)
            inside90 = Double(zip(errors, radii).filter { $0 <= $1.r90 }.count) / Double(errors.count)
            medianRadius90 = RSSISummary.quantile(radii.map(\.r90).sorted(), 0.5)
            chance50 = Self.chance(zip(errors, radii).map { $0 <= $1.r50 }, target: 0.5)
            chance90 = Self.chance(zip(errors, radii).map { $0 <= $1.r90 }, target: 0.9)
        }
    }

    /// The half-width of the 95 % band about `target` for a share of `inside` (in order) that is `target` in truth.
    public static func chance(_ inside: [Bool], target: Double) -> Double {
        let values = inside.map { $0 ? 1.0 : 0.0 }
        let mean = values.reduce(0, +) / Double(values.count)
        let variance = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) }
        let lagged = zip(values, values.dropFirst()).reduce(0) { $0 + ($1.0 - mean) * ($1.1 - mean) }
        let rho = variance > 0 ? max(0, min(0.95, lagged / variance)) : 0
        let effective = max(1, Double(values.count) * (1 - rho) / (1 + rho))
        return 1.96 * (target * (1 - target) / effective).squareRoot()
    }
}
