import Beacon

/// Number formatting for the range view without Foundation's locale-dependent formatters.
enum NumberText {
    /// A distance in metres: centimetres below 1 m, one decimal below 10 m, whole metres up to 99 m, then "> 99 m".
    static func metres(_ value: Double) -> String {
        if value < 0.995 { return DecimalText.fixed(value, 2) + " m" }
        if value < 9.95 { return DecimalText.fixed(value, 1) + " m" }
        if value < 99.5 { return DecimalText.fixed(value, 0) + " m" }
        return "> 99 m"
    }

    /// An uncertainty in metres, to the same precision as the distance it qualifies.
    static func metres(_ value: Double, like distance: Double) -> String {
        DecimalText.fixed(value, distance < 0.995 ? 2 : distance < 9.95 ? 1 : 0) + " m"
    }

    /// How long ago, coarser as it grows.
    static func ago(_ seconds: Double) -> String {
        if seconds < 9.95 { return DecimalText.fixed(seconds, 1) + " s ago" }
        let whole = Int(seconds.rounded(.down))
        if whole < 60 { return "\(whole) s ago" }
        if whole < 3600 { return "\(whole / 60) min \(whole % 60) s ago" }
        return "\(whole / 3600) h \(whole % 3600 / 60) min ago"
    }
}
