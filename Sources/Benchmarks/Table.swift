import Beacon

/// Plain-text tables for benchmark output.
public enum Table {
    public static func render(header: [String], rows: [[String]]) -> String {
        let all = [header] + rows
        let widths = (0..<header.count).map { column in all.map { $0.count > column ? $0[column].count : 0 }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { column, cell in
                column == 0 ? cell.padded(to: widths[column]) : cell.leftPadded(to: widths[column])
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}

/// A number with a fixed count of decimals, without Foundation's format APIs.
public func fmt(_ value: Double, _ decimals: Int) -> String {
    guard value.isFinite else { return value.isNaN ? "n/a" : (value > 0 ? "inf" : "-inf") }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let rounded = (abs(value) * scale).rounded()
    let whole = Int(rounded / scale)
    let fraction = Int(rounded - Double(whole) * scale)
    let sign = value < 0 && rounded > 0 ? "-" : ""
    guard decimals > 0 else { return sign + String(whole) }
    let digits = String(fraction)
    return sign + String(whole) + "." + String(repeating: "0", count: decimals - digits.count) + digits
}
