/// Whether the signal is getting stronger (walking toward the bike) or weaker.
public enum Trend: String, Equatable, Sendable {
    case warmer, colder, steady

    /// Seconds of history the hint looks back over.
    public static let window = 5.0
    /// Changes of the smoothed RSSI smaller than this (dB) count as steady, so noise does not flip the hint.
    public static let deadBand = 2.0

    /// The change of the smoothed RSSI over the last `window` seconds up to `now`, in dB: the
    /// latest smoothed value minus the one in force at the window's start (the first reading
    /// when nothing is older). Nil without readings.
    public static func change(in history: SignalHistory, now: Double, window: Double = window) -> Double? {
        let heard = history.samples.filter { $0.time <= now }
        guard let latest = heard.last else { return nil }
        let baseline = heard.last { $0.time <= now - window } ?? heard[0]
        return latest.filtered - baseline.filtered
    }

    /// The hint for `history` at `now`, nil without readings.
    public static func of(_ history: SignalHistory, now: Double, window: Double = window, deadBand: Double = deadBand) -> Trend? {
        guard let change = change(in: history, now: now, window: window) else { return nil }
        if change >= deadBand { return .warmer }
        if change <= -deadBand { return .colder }
        return .steady
    }
}
