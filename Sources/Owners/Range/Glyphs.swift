/// The characters the range view draws with: Unicode blocks and lines, or plain ASCII for
/// terminals that cannot show them (TERM=dumb).
public struct Glyphs: Sendable, Equatable {
    /// Sparkline levels, weakest first.
    public var levels: [Character]
    public var gap: Character
    public var rule: Character
    public var marker: Character
    public var tick: Character
    public var plusMinus: String
    public var warmer: String
    public var colder: String

    public static let unicode = Glyphs(levels: Array("▁▂▃▄▅▆▇█"), gap: "·", rule: "─", marker: "▲", tick: "┼", plusMinus: "±", warmer: "↑", colder: "↓")
    public static let ascii = Glyphs(levels: Array("_.-=+*#@"), gap: " ", rule: "-", marker: "^", tick: "+", plusMinus: "+/-", warmer: "^", colder: "v")
}
