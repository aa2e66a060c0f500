#if canImport(Glibc)
import Glibc
#endif
import Beacon
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Proximity

/// The `bikebeacon range` screen: a pure function from a `RangeView` to exactly
/// `RangeScreen.rows` lines, none wider than `RangeScreen.columns`.
public enum RangeScreen {
    public static let rows = 24
    public static let columns = 80

    /// Left edge of the distance meter and its width in columns.
    static let meterStart = 2
    static let meterWidth = 70
    /// The meter's log scale ends, metres.
    static let meterNear = 0.1
    static let meterFar = 30.0

    public static func render(_ view: RangeView, glyphs: Glyphs = .unicode) -> [ScreenLine] {
        var lines: [ScreenLine] = []
        lines.append(header(view))
        lines.append(ScreenLine("beacon " + view.beacon.description, .dim))
        lines.append(ScreenLine(String(repeating: glyphs.rule, count: columns), .dim))
        lines.append(ScreenLine())
        lines.append(field("ZONE") + ScreenLine(view.zoneLabel, zoneEmphasis(view.estimate.zone)))
        lines.append(field("DISTANCE") + ScreenLine(distanceText(view, glyphs: glyphs), .bold))
        lines.append(ScreenLine())
        lines += meter(view, glyphs: glyphs)
        lines.append(ScreenLine())
        lines.append(field("RSSI") + ScreenLine(rssiText(view)))
        lines.append(field("LAST HEARD") + ScreenLine(view.secondsSinceHeard.map(NumberText.ago) ?? "not yet: listening"))
        lines.append(field("HINT") + hint(view, glyphs: glyphs))
        lines.append(ScreenLine())
        lines += signal(view, glyphs: glyphs)
        while lines.count < rows - 2 { lines.append(ScreenLine()) }
        lines.append(ScreenLine(view.notice.map(clean) ?? "", .poor))
        lines.append(ScreenLine("Ctrl-C to quit", .dim))
        return lines.map { crop($0) }
    }

    private static func header(_ view: RangeView) -> ScreenLine {
        let source = clean(view.source)
        let title = "bikebeacon range: " + (view.bike.map(clean) ?? "beacon")
        let room = columns - source.count - 2
        let shown = title.count > room ? String(title.prefix(max(0, room - 3))) + "..." : title
        return ScreenLine(shown, .bold) + ScreenLine(String(repeating: " ", count: max(1, columns - shown.count - source.count)) + source, .dim)
    }

    private static func field(_ name: String) -> ScreenLine {
        ScreenLine("  " + name.padded(to: 13))
    }

    private static func zoneEmphasis(_ zone: Zone) -> ScreenLine.Emphasis {
        switch zone {
        case .immediate: .good
        case .near: .fair
        case .far: .poor
        case .unknown: .bad
        }
    }

    private static func distanceText(_ view: RangeView, glyphs: Glyphs) -> String {
        guard view.estimate.zone != .unknown, let distance = view.estimate.distance else { return "unknown" }
        guard let uncertainty = view.estimate.distanceUncertainty else { return NumberText.metres(distance) }
        return NumberText.metres(distance) + " " + glyphs.plusMinus + " " + NumberText.metres(uncertainty, like: distance)
    }

    private static func rssiText(_ view: RangeView) -> String {
        guard let last = view.history.last else { return "no readings yet" }
        var parts: [String] = []
        if let filtered = view.estimate.filteredRSSI { parts.append("filtered " + DecimalText.fixed(filtered, 1) + " dBm") }
        parts.append("raw \(last.rssi) dBm")
        if let power = last.measuredPower { parts.append("1 m power \(power) dBm") }
        return parts.joined(separator: "   ")
    }

    private static func hint(_ view: RangeView, glyphs: Glyphs) -> ScreenLine {
        guard let trend = view.trend, let change = Trend.change(in: view.history, now: view.now) else {
            return ScreenLine(view.history.last == nil ? "-" : "- (no signal: walk around to find it)")
        }
        let window = DecimalText.fixed(Trend.window, 0)
        let detail = " (" + (change > 0 ? "+" : "") + DecimalText.fixed(change, 1) + " dB in \(window) s)"
        switch trend {
        case .warmer: return ScreenLine("WARMER " + glyphs.warmer, .warm) + ScreenLine(detail + ": you are getting closer")
        case .colder: return ScreenLine("COLDER " + glyphs.colder, .cold) + ScreenLine(detail + ": you are moving away")
        case .steady: return ScreenLine("STEADY") + ScreenLine(detail)
        }
    }

    /// A log-scale bar from 0.1 m to 30 m with the zone limits and a marker at the estimate.
    private static func meter(_ view: RangeView, glyphs: Glyphs) -> [ScreenLine] {
        let near = position(Zone.immediateLimit), far = position(Zone.nearLimit)
        var labels = blank(), bar = blank(), marker = blank(), scale = blank()
        place("IMMEDIATE", at: (near - 9) / 2, in: &labels)
        place("NEAR", at: near + (far - near - 4) / 2, in: &labels)
        place("FAR", at: far + (meterWidth - far - 3) / 2, in: &labels)
        bar = Array(String(repeating: glyphs.rule, count: meterWidth + 1))
        for tick in [0, near, far, meterWidth] { bar[tick] = glyphs.tick }
        place("0.1 m", at: 0, in: &scale)
        place("0.5 m", at: near - 2, in: &scale)
        place("3 m", at: far - 1, in: &scale)
        place("30 m", at: meterWidth - 3, in: &scale)
        if view.estimate.zone != .unknown, let distance = view.estimate.distance {
            let at = position(distance)
            marker[at] = glyphs.marker
            place(NumberText.metres(distance), at: at + 2 <= meterWidth - 6 ? at + 2 : at - 8, in: &marker)
        }
        let indent = String(repeating: " ", count: meterStart)
        return [
            ScreenLine(indent + String(labels).trailingTrimmed, .dim),
            ScreenLine(indent + String(bar)),
            ScreenLine(indent + String(marker).trailingTrimmed, zoneEmphasis(view.estimate.zone)),
            ScreenLine(indent + String(scale).trailingTrimmed, .dim),
        ]
    }

    private static func signal(_ view: RangeView, glyphs: Glyphs) -> [ScreenLine] {
        let width = columns - 4
        let gap = 30.0
        guard let chart = Sparkline.render(view.history.samples, width: width, gap: gap, glyphs: glyphs) else {
            return [field("SIGNAL") + ScreenLine("no readings yet")]
        }
        let count = min(view.history.samples.count, width)
        let noun = count == 1 ? "reading" : "readings"
        let legend = "last \(count) \(noun), \(chart.low) to \(chart.high) dBm, stronger is taller"
        return [
            field("SIGNAL") + ScreenLine(legend),
            ScreenLine("  " + chart.line, zoneEmphasis(view.estimate.zone)),
        ]
    }

    /// Control characters in names or messages would be terminal escapes: show them as "?".
    static func clean(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map {
            $0.properties.generalCategory == .control ? "?" : $0
        }))
    }

    private static func crop(_ line: ScreenLine) -> ScreenLine {
        guard line.width > columns else { return line }
        var out = ScreenLine()
        var left = columns
        for run in line.runs where left > 0 {
            let text = String(run.text.prefix(left))
            left -= text.count
            out = out + ScreenLine(text, run.emphasis)
        }
        return out
    }

    private static func position(_ distance: Double) -> Int {
        let fraction = (log10(max(distance, meterNear)) - log10(meterNear)) / (log10(meterFar) - log10(meterNear))
        return min(meterWidth, max(0, Int((fraction * Double(meterWidth)).rounded())))
    }

    private static func blank() -> [Character] { Array(repeating: " ", count: meterWidth + 1) }

    private static func place(_ text: String, at column: Int, in row: inout [Character]) {
        for (offset, character) in text.enumerated() {
            let index = column + offset
            if index >= 0, index < row.count { row[index] = character }
        }
    }
}

extension String {
    fileprivate var trailingTrimmed: String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
