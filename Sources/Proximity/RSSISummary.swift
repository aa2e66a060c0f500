/// The level of a tag held still at a known distance and how much it wanders: what a site
/// calibration measures. The median, not the mean, because single BLE readings fade 10–20 dB;
/// the interquartile range says whether the tag was steady enough to trust the median.
public struct RSSISummary: Sendable, Equatable {
    public var median: Double
    /// First and third quartiles, dBm.
    public var lowerQuartile: Double
    public var upperQuartile: Double
    public var count: Int

    /// Nil for no readings.
    public init?(_ readings: [Double]) {
        guard !readings.isEmpty else { return nil }
        let sorted = readings.sorted()
        median = Self.quantile(sorted, 0.5)
        lowerQuartile = Self.quantile(sorted, 0.25)
        upperQuartile = Self.quantile(sorted, 0.75)
        count = sorted.count
    }

    public var interquartileRange: Double { upperQuartile - lowerQuartile }

    /// Linear-interpolation quantile of sorted, non-empty values (numpy's default).
    public static func quantile(_ sorted: [Double], _ q: Double) -> Double {
        let position = q * Double(sorted.count - 1)
        let lower = Int(position.rounded(.down))
        let upper = min(lower + 1, sorted.count - 1)
        return sorted[lower] + (position - Double(lower)) * (sorted[upper] - sorted[lower])
    }
}
