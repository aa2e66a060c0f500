/// Which server `bikebeacon enroll` asks and with which code: from the URL `sentinels add --public-url`
/// prints (`https://server/enrol#CODE`; `https://server/enrol/CODE` from older servers), or a server address and
/// the code apart. Pure.
public struct EnrolmentTarget: Sendable, Equatable {
    /// The server's base URL, without a trailing slash: what the sentinel's config gets.
    public var serverURL: String
    public var code: String

    public init(serverURL: String, code: String) {
        self.serverURL = serverURL
        self.code = code
    }

    /// `argument` is a URL or a host (https is assumed without a scheme); `code` is given apart unless the URL carries it.
    public static func parse(_ argument: String, code: String?) throws(EnrolmentError) -> EnrolmentTarget {
        var text = trimmed(argument, \.isWhitespace)
        guard !text.isEmpty else { throw .badTarget("give the enrolment URL `sentinels add` printed, or the server's address and the code") }
        if text.firstRange(of: "://") == nil { text = "https://" + text }
        guard let schemeEnd = text.firstRange(of: "://"), ["http", "https"].contains(text[..<schemeEnd.lowerBound].lowercased()) else {
            throw .badTarget("'\(argument)' is not an http or https URL")
        }
        // The code after `/enrol#` (the fragment, which no browser sends) is cut off before the URL is checked.
        var carried: String?
        if let marker = text.ranges(of: "/enrol#").last, marker.lowerBound > schemeEnd.upperBound {
            carried = String(text[marker.upperBound...])
            text = String(text[..<marker.lowerBound])
        }
        guard !text.contains(where: { $0.isWhitespace || "\"\\#?".contains($0) }), carried?.contains(where: { $0.isWhitespace || "\"\\#?/".contains($0) }) != true else {
            throw .badTarget("'\(argument)' is not a plain URL (no spaces, quotes, '?' or '#' but the one before the code)")
        }
        if carried?.isEmpty == true { carried = nil }
        // Counted, not indexed: `text` is cut below.
        let schemeLength = text.distance(from: text.startIndex, to: schemeEnd.upperBound)
        if carried == nil, let marker = text.ranges(of: "/enrol/").last, marker.lowerBound > schemeEnd.upperBound {
            let tail = trimmed(String(text[marker.upperBound...])) { $0 == "/" }
            if !tail.isEmpty, !tail.contains("/") {
                carried = tail
                text = String(text[..<marker.lowerBound])
            }
        }
        guard text.dropFirst(schemeLength).contains(where: { $0 != "/" }) else { throw .badTarget("'\(argument)' names no server") }
        while text.hasSuffix("/") { text.removeLast() }
        let given = code.map { trimmed($0, \.isWhitespace) }
        switch (carried, given) {
        case let (carried?, given?) where plain(carried) != plain(given):
            throw .badTarget("the URL carries the code \(carried) but \(given) was given too: give one")
        case let (carried?, _):
            return EnrolmentTarget(serverURL: text, code: carried)
        case let (nil, given?) where !given.isEmpty:
            return EnrolmentTarget(serverURL: text, code: given)
        default:
            throw .badTarget("no enrolment code: give `bikebeacon enroll \(text) CODE`, or the URL with /enrol#CODE that `sentinels add --public-url` printed")
        }
    }

    private static func plain(_ code: String) -> String { code.uppercased().filter { $0 != "-" } }

    private static func trimmed(_ text: String, _ drop: (Character) -> Bool) -> String {
        String(text.drop(while: drop).reversed().drop(while: drop).reversed())
    }
}
