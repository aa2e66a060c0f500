/// How a screen is drawn in a given environment: colour is an extra that NO_COLOR (any
/// non-empty value, as no-color.org says) or TERM=dumb turn off; a dumb or unknown terminal
/// also gets ASCII and no cursor movement at all.
public struct ScreenStyle: Equatable, Sendable {
    public var colour: Bool
    public var cursorControl: Bool
    public var glyphs: Glyphs

    public init(environment: [String: String]) {
        let term = environment["TERM"] ?? ""
        let dumb = term.isEmpty || term == "dumb"
        let noColour = !(environment["NO_COLOR"] ?? "").isEmpty
        colour = !dumb && !noColour
        cursorControl = !dumb
        glyphs = dumb ? .ascii : .unicode
    }
}
