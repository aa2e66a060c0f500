#if canImport(Glibc)
import Glibc
#endif
import Owners

/// The terminal the range view draws on: the alternate screen with the cursor hidden while
/// it runs, put back exactly as it was when it ends.
public struct Terminal: Sendable {
    public let style: ScreenStyle

    public init(style: ScreenStyle) {
        self.style = style
    }

    public static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// Rows and columns of the terminal on stdout, or 24×80 when it will not say.
    public static func size() -> (rows: Int, columns: Int) {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0, size.ws_col > 0 else { return (24, 80) }
        return (Int(size.ws_row), Int(size.ws_col))
    }

    /// Switches to the alternate screen and hides the cursor.
    public func enter() {
        if style.cursorControl { Self.write("\u{1B}[?1049h\u{1B}[?25l\u{1B}[H\u{1B}[2J") }
    }

    /// Shows the cursor and returns to the normal screen with its old content.
    public func leave() {
        if style.cursorControl { Self.write("\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l") }
    }

    /// Redraws the whole screen in one write, cropped to the terminal so nothing scrolls.
    public func draw(_ lines: [ScreenLine]) {
        let (rows, columns) = Self.size()
        let shown = lines.prefix(rows).map { $0.rendered(columns: columns, colour: style.colour) }
        if style.cursorControl {
            Self.write("\u{1B}[H" + shown.joined(separator: "\u{1B}[K\r\n") + "\u{1B}[K")
        } else {
            Self.write("\n" + shown.joined(separator: "\n") + "\n")
        }
    }

    /// Writes everything to stdout (or `descriptor`), unbuffered, retrying short writes; a
    /// terminal or pipe that went away is not an error worth raising.
    public static func write(_ text: String, to descriptor: Int32 = STDOUT_FILENO) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            bytes = bytes.dropFirst(written)
        }
    }
}
