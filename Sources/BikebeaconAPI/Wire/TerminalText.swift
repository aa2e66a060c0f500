/// Text from outside (a sentinel's heartbeat, a finder's report, an owner's e-mail address or bike name) as an
/// operator's terminal may show it. Pure.
///
/// A terminal obeys what it prints: ESC starts a sequence that can move the cursor, recolour or clear the screen,
/// CR returns to the start of the line to overwrite it, and bidi overrides reorder what follows. A stored string that
/// holds them could redraw a broken sentinel as "listening, no errors". Machine fields refuse such characters
/// (`firstUnsafe`); free text is kept as written and shown `escaped`.
public enum TerminalText {
    /// Bidi formatting characters: embeddings and overrides (U+202A–U+202E), isolates (U+2066–U+2069) and the
    /// invisible marks (U+200E, U+200F, U+061C) that turn a line's visible order away from its stored order.
    static let bidi: Set<UInt32> = [0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069]

    /// Whether a terminal would act on the scalar rather than show it: C0 controls (CR, LF, TAB, ESC…), DEL,
    /// C1 controls (including the 8-bit CSI, U+009B), the line and paragraph separators, and bidi formatting.
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: true
        default: bidi.contains(scalar.value)
        }
    }

    /// The first unsafe scalar in `text`, for a refusal that names it; nil when there is none.
    public static func firstUnsafe(in text: String) -> Unicode.Scalar? {
        text.unicodeScalars.first(where: isUnsafe)
    }

    /// `text` with each unsafe scalar written as a visible Swift-style escape, `\u{1B}`; everything else as it is.
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar) {
                out.append(contentsOf: name(scalar).unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// The escape for one scalar: `\u{1B}`, upper-case hex, no leading zeros.
    public static func name(_ scalar: Unicode.Scalar) -> String {
        "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
    }
}
