/// Fixed-width columns for the command line's tables (scan and replay output, the demo, the
/// benchmarks). Spaces only, never truncating: a long value widens its row rather than losing digits.
extension String {
    /// Left-aligned in `width` characters.
    public func padded(to width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }

    /// Right-aligned in `width` characters (numbers).
    public func leftPadded(to width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
