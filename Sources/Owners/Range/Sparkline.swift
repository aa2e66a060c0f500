/// A one-line chart of the recent raw RSSI readings, one column per reading.
public enum Sparkline {
    /// The narrowest dB span the chart scales to, so a steady signal draws flat instead of as noise.
    public static let minimumSpan = 20

    /// The chart for the last `width` readings: a level per reading (higher is stronger), and a
    /// gap glyph between readings further apart than `gap` seconds (time out of range).
    /// Returns the characters and the dBm range they span.
    public static func render(_ samples: [SignalSample], width: Int, gap: Double, glyphs: Glyphs) -> (line: String, low: Int, high: Int)? {
        guard width > 0, !samples.isEmpty else { return nil }
        var cells: [Int?] = []
        for (index, sample) in samples.enumerated() {
            if index > 0, sample.time - samples[index - 1].time > gap { cells.append(nil) }
            cells.append(sample.rssi)
        }
        let shown = cells.suffix(width)
        let values = shown.compactMap { $0 }
        guard var low = values.min(), var high = values.max() else { return nil }
        if high - low < minimumSpan {
            let pad = minimumSpan - (high - low)
            low -= pad / 2
            high += pad - pad / 2
        }
        let levels = glyphs.levels
        let line = shown.map { cell -> Character in
            guard let rssi = cell else { return glyphs.gap }
            let fraction = Double(rssi - low) / Double(high - low)
            return levels[min(levels.count - 1, Int((fraction * Double(levels.count)).rounded(.down)))]
        }
        return (String(line), low, high)
    }
}
