/// Numbers with a fixed count of decimals, without Foundation's `String(format:)` (which needs
/// all of Foundation): the range view, the analysis CSV.
public enum DecimalText {
    /// `value` with exactly `digits` decimals, rounded half away from zero.
    public static func fixed(_ value: Double, _ digits: Int) -> String {
        guard value.isFinite else { return "?" }
        // Beyond 15 digits the integer arithmetic below would overflow; such values are not ours.
        guard abs(value) < 1e15, (0...15).contains(digits) else { return "\(value)" }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        let whole = Int(scaled / scale)
        let fraction = Int(scaled - Double(whole) * scale)
        let sign = value < 0 && scaled != 0 ? "-" : ""
        guard digits > 0 else { return sign + String(whole) }
        let fractionText = String(fraction)
        return sign + String(whole) + "." + String(repeating: "0", count: digits - fractionText.count) + fractionText
    }
}
