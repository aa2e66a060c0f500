/// One line of a text screen: runs of text, each with an optional emphasis. Colour is an
/// extra drawn from the emphasis; the plain text carries all the meaning on its own.
public struct ScreenLine: Equatable, Sendable {
    public enum Emphasis: Sendable, Equatable {
        case bold, dim, good, fair, poor, bad, warm, cold
    }

    public struct Run: Equatable, Sendable {
        public var text: String
        public var emphasis: Emphasis?
    }

    public private(set) var runs: [Run] = []

    public init(_ text: String = "", _ emphasis: Emphasis? = nil) {
        if !text.isEmpty { runs.append(Run(text: text, emphasis: emphasis)) }
    }

    public static func + (lhs: ScreenLine, rhs: ScreenLine) -> ScreenLine {
        var line = lhs
        line.runs += rhs.runs
        return line
    }

    public var plain: String { runs.map(\.text).joined() }

    /// Width in terminal columns (every character the view draws is one column wide).
    public var width: Int { runs.reduce(0) { $0 + $1.text.count } }

    /// The line cut to `columns`, with ANSI SGR colour when `colour` is true.
    public func rendered(columns: Int, colour: Bool) -> String {
        var out = ""
        var left = max(0, columns)
        for run in runs where left > 0 {
            let text = String(run.text.prefix(left))
            left -= text.count
            if colour, let emphasis = run.emphasis {
                out += "\u{1B}[\(Self.sgr(emphasis))m" + text + "\u{1B}[0m"
            } else {
                out += text
            }
        }
        return out
    }

    private static func sgr(_ emphasis: Emphasis) -> String {
        switch emphasis {
        case .bold: "1"
        case .dim: "2"
        case .good: "1;32"
        case .fair: "1;36"
        case .poor: "1;33"
        case .bad: "1;31"
        case .warm: "1;31"
        case .cold: "1;34"
        }
    }
}
