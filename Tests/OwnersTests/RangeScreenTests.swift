import Beacon
import Owners
import Proximity
import Foundation
import Testing

/// The range screen as a pure function of plain values.
struct RangeScreenTests {
    static let beacon = BeaconID("494E5445-4C4C-495F-524F-434B535F4857:20596:25984")!
    static let t0 = 1_700_000_000.0

    /// A view at `now` with readings (seconds after t0, raw RSSI, filtered RSSI).
    static func view(
        zone: Zone, distance: Double? = nil, uncertainty: Double? = nil,
        readings: [(Double, Int, Double)] = [], now: Double = 0, bike: String? = "red commuter", notice: String? = nil
    ) -> RangeView {
        let history = SignalHistory(samples: readings.map { SignalSample(time: t0 + $0.0, rssi: $0.1, filtered: $0.2, measuredPower: -62) })
        let estimate = ProximityEstimate(time: t0 + now, filteredRSSI: readings.last?.2, distance: distance, distanceUncertainty: uncertainty, zone: zone)
        return RangeView(bike: bike, beacon: beacon, estimate: estimate, history: history, now: t0 + now, source: "replay test.btsnoop x20", notice: notice)
    }

    static func text(_ view: RangeView, glyphs: Glyphs = .unicode) -> [String] {
        RangeScreen.render(view, glyphs: glyphs).map(\.plain)
    }

    static func row(_ lines: [String], _ label: String) -> String? {
        lines.first { $0.hasPrefix("  " + label + " ") }
    }

    @Test(arguments: [
        (Zone.immediate, 0.3, "IMMEDIATE"),
        (Zone.near, 1.7, "NEAR"),
        (Zone.far, 8.0, "FAR"),
    ])
    func zoneLabelAndDistanceMarker(zone: Zone, distance: Double, label: String) throws {
        let lines = Self.text(Self.view(zone: zone, distance: distance, readings: [(0, -60, -60)], now: 1))
        #expect(Self.row(lines, "ZONE") == "  ZONE         " + label)
        let marker = try #require(lines.first { $0.contains("▲") })
        #expect(marker.contains("▲ " + Self.metres(distance)))
        let scale = try #require(lines.first { $0.hasPrefix("  0.1 m") })
        let column = try #require(marker.firstIndex(of: "▲")).utf16Offset(in: marker)
        let half = try #require(scale.range(of: "0.5 m")).lowerBound.utf16Offset(in: scale) + 2
        let three = try #require(scale.range(of: "3 m")).lowerBound.utf16Offset(in: scale) + 1
        switch zone {
        case .immediate: #expect(column < half)
        case .near: #expect(column > half && column < three)
        default: #expect(column > three)
        }
    }

    @Test func unheardBikeIsOutOfRangeAndListening() {
        let lines = Self.text(Self.view(zone: .unknown))
        #expect(Self.row(lines, "ZONE") == "  ZONE         OUT OF RANGE")
        #expect(Self.row(lines, "DISTANCE") == "  DISTANCE     unknown")
        #expect(Self.row(lines, "LAST HEARD") == "  LAST HEARD   not yet: listening")
        #expect(Self.row(lines, "RSSI") == "  RSSI         no readings yet")
        #expect(Self.row(lines, "HINT") == "  HINT         -")
        #expect(!lines.joined().contains("▲"))
    }

    @Test func staleBikeIsOutOfRangeWithItsLastReading() {
        let lines = Self.text(Self.view(zone: .unknown, distance: nil, readings: [(0, -70, -68.5)], now: 42))
        #expect(Self.row(lines, "ZONE") == "  ZONE         OUT OF RANGE")
        #expect(Self.row(lines, "LAST HEARD") == "  LAST HEARD   42 s ago")
        #expect(Self.row(lines, "RSSI") == "  RSSI         filtered -68.5 dBm   raw -70 dBm   1 m power -62 dBm")
        #expect(Self.row(lines, "HINT") == "  HINT         - (no signal: walk around to find it)")
        #expect(!lines.joined().contains("▲"), "no position is drawn for a bike that is not heard")
    }

    @Test(arguments: [
        (2.345, 0.81, Glyphs.unicode, "2.3 m ± 0.8 m"),
        (2.345, nil, Glyphs.unicode, "2.3 m"),
        (0.04, 0.02, Glyphs.unicode, "0.04 m ± 0.02 m"),
        (12.4, 6.6, Glyphs.unicode, "12 m ± 7 m"),
        (150.0, 40.0, Glyphs.ascii, "> 99 m +/- 40 m"),
    ] as [(Double, Double?, Glyphs, String)])
    func distanceWithUncertainty(distance: Double, uncertainty: Double?, glyphs: Glyphs, expected: String) {
        let lines = Self.text(Self.view(zone: Zone(distance: distance), distance: distance, uncertainty: uncertainty, readings: [(0, -60, -60)], now: 1), glyphs: glyphs)
        #expect(Self.row(lines, "DISTANCE") == "  DISTANCE     " + expected)
    }

    @Test func lastHeardGetsCoarserWithAge() {
        for (now, expected) in [(0.25, "0.3 s ago"), (9.94, "9.9 s ago"), (59.9, "59 s ago"), (125.0, "2 min 5 s ago"), (3725.0, "1 h 2 min ago")] {
            let lines = Self.text(Self.view(zone: .unknown, readings: [(0, -60, -60)], now: now))
            #expect(Self.row(lines, "LAST HEARD") == "  LAST HEARD   " + expected)
        }
    }

    @Test func sparklineDrawsOneLevelPerReadingAndGapsWhenUnheard() throws {
        let readings: [(Double, Int, Double)] = [(0, -80, -80), (1, -70, -77), (2, -60, -72), (40, -90, -75), (41, -50, -70)]
        let lines = Self.text(Self.view(zone: .near, distance: 1, readings: readings, now: 41.5))
        let legend = try #require(Self.row(lines, "SIGNAL"))
        #expect(legend == "  SIGNAL       last 5 readings, -90 to -50 dBm, stronger is taller")
        let index = try #require(lines.firstIndex(of: legend))
        #expect(lines[index + 1] == "  ▃▅▇·▁█", "38 s without a reading (over the 30 s gap) shows as ·")

        let flat = Sparkline.render([SignalSample(time: 0, rssi: -60, filtered: -60, measuredPower: nil), SignalSample(time: 1, rssi: -62, filtered: -61, measuredPower: nil)], width: 10, gap: 30, glyphs: .unicode)
        #expect(flat?.low == -71 && flat?.high == -51, "a steady signal is scaled over at least 20 dB so it draws flat")
        #expect(flat?.line == "▅▄", "a 2 dB wobble moves one level, not the full height")

        let many = (0..<200).map { SignalSample(time: Double($0), rssi: -100 + $0 % 50, filtered: -75, measuredPower: nil) }
        #expect(Sparkline.render(many, width: 76, gap: 30, glyphs: .ascii)?.line.count == 76)
    }

    @Test func warmerAndColderOnlyOutsideTheDeadBand() {
        // Filtered RSSI at t = 0 is the baseline once 5 s have passed; the hint compares the latest value with it.
        func hint(_ latest: Double, now: Double = 5) -> String? {
            Self.row(Self.text(Self.view(zone: .near, distance: 1, readings: [(0, -70, -70), (4, -60, latest)], now: now)), "HINT")
        }
        #expect(hint(-68.5) == "  HINT         STEADY (+1.5 dB in 5 s)")
        #expect(hint(-71.9) == "  HINT         STEADY (-1.9 dB in 5 s)")
        #expect(hint(-67.5) == "  HINT         WARMER ↑ (+2.5 dB in 5 s): you are getting closer")
        #expect(hint(-73.0) == "  HINT         COLDER ↓ (-3.0 dB in 5 s): you are moving away")
        // Ten seconds on, the last change is outside the window: no longer warmer.
        #expect(hint(-60, now: 10) == "  HINT         STEADY (0.0 dB in 5 s)")
    }

    @Test func trendUsesTheValueInForceAtTheWindowStart() {
        let history = SignalHistory(samples: [
            SignalSample(time: 0, rssi: -80, filtered: -80, measuredPower: nil),
            SignalSample(time: 3, rssi: -70, filtered: -75, measuredPower: nil),
            SignalSample(time: 7, rssi: -60, filtered: -70, measuredPower: nil),
            SignalSample(time: 20, rssi: -90, filtered: -95, measuredPower: nil),
        ])
        #expect(Trend.change(in: history, now: 8) == 5, "-70 now against -75, in force since t = 3 (8 - 5 = 3)")
        #expect(Trend.of(history, now: 8) == .warmer)
        #expect(Trend.change(in: history, now: 2) == 0, "only one reading so far")
        #expect(Trend.of(SignalHistory(), now: 8) == nil)
    }

    @Test func everyScreenIs24LinesOfAtMost80Columns() {
        let long = String(repeating: "a very long bike name ", count: 10)
        let views = [
            Self.view(zone: .unknown),
            Self.view(zone: .far, distance: 250, uncertainty: 300, readings: (0..<300).map { (Double($0), -100 + $0 % 70, -70) }, now: 300, bike: long, notice: String(repeating: "warning ", count: 30)),
            Self.view(zone: .immediate, distance: 0.01, readings: [(0, -20, -20)], now: 0, bike: nil),
        ]
        for view in views {
            for glyphs in [Glyphs.unicode, .ascii] {
                let lines = RangeScreen.render(view, glyphs: glyphs)
                #expect(lines.count == 24)
                #expect(lines.allSatisfy { $0.width <= 80 }, "\(lines.map(\.plain).filter { $0.count > 80 })")
                #expect(lines[23].plain == "Ctrl-C to quit")
            }
        }
        let header = RangeScreen.render(views[1])[0].plain
        #expect(header.hasPrefix("bikebeacon range: a very long bike name"))
        #expect(header.hasSuffix("...  replay test.btsnoop x20") || header.hasSuffix("... replay test.btsnoop x20"))
    }

    @Test func controlCharactersInNamesCannotReachTheTerminal() {
        let lines = RangeScreen.render(Self.view(zone: .near, distance: 1, readings: [(0, -60, -60)], now: 1, bike: "evil\u{1B}[2J\u{07}", notice: "bad\u{1B}]0;x"))
        let all = lines.map { $0.rendered(columns: 80, colour: false) }.joined()
        #expect(!all.contains("\u{1B}") && !all.contains("\u{07}"))
        #expect(lines[0].plain.hasPrefix("bikebeacon range: evil?[2J?"))
    }

    @Test func colourIsOnlyAnExtra() {
        let lines = RangeScreen.render(Self.view(zone: .far, distance: 5, readings: [(0, -60, -60), (4, -70, -66)], now: 5))
        let coloured = lines.map { $0.rendered(columns: 80, colour: true) }
        let plain = lines.map { $0.rendered(columns: 80, colour: false) }
        #expect(coloured.contains { $0.contains("\u{1B}[1;33mFAR\u{1B}[0m") })
        #expect(plain.allSatisfy { !$0.contains("\u{1B}") })
        #expect(coloured.map(Self.stripSGR) == plain)
        #expect(lines.map { $0.rendered(columns: 10, colour: true) }.map(Self.stripSGR).allSatisfy { $0.count <= 10 })
    }

    @Test func environmentDecidesColourAndGlyphs() {
        #expect(ScreenStyle(environment: ["TERM": "xterm-256color"]) == ScreenStyle(environment: ["TERM": "screen", "NO_COLOR": ""]))
        #expect(ScreenStyle(environment: ["TERM": "xterm-256color"]).colour)
        #expect(!ScreenStyle(environment: ["TERM": "xterm-256color", "NO_COLOR": "1"]).colour)
        #expect(ScreenStyle(environment: ["TERM": "xterm-256color", "NO_COLOR": "1"]).cursorControl)
        let dumb = ScreenStyle(environment: ["TERM": "dumb"])
        #expect(!dumb.colour && !dumb.cursorControl && dumb.glyphs == .ascii)
    }

    static func stripSGR(_ text: String) -> String {
        var out = ""
        var inEscape = false
        for character in text {
            if character == "\u{1B}" { inEscape = true; continue }
            if inEscape { if character == "m" { inEscape = false }; continue }
            out.append(character)
        }
        return out
    }

    /// How the screen prints a distance, for the marker check.
    static func metres(_ d: Double) -> String {
        d < 0.995 ? String(format: "%.2f m", d) : d < 9.95 ? String(format: "%.1f m", d) : String(format: "%.0f m", d)
    }
}
