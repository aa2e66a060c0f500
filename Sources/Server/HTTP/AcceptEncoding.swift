/// What a request's `Accept-Encoding` allows (RFC 9110 §12.5.3), for the answers the server keeps
/// compressed (the missing list). Pure: the header's text in, a yes or no out.
enum AcceptEncoding {
    /// Whether the client takes a gzip body: `gzip` (or the old `x-gzip`) or `*` listed with a weight
    /// above 0, and gzip not refused by name (`gzip;q=0` beats `*`). No header means identity only:
    /// a client that never asked gets the plain JSON it always got.
    static func allowsGzip(_ header: String?) -> Bool {
        guard let header else { return false }
        var named: Bool?
        var wildcard: Bool?
        for item in header.split(separator: ",") {
            let parts = item.split(separator: ";")
            guard let coding = parts.first.map({ $0.withoutOptionalWhitespace.lowercased() }) else { continue }
            let weight = parts.dropFirst().lazy.compactMap(Self.weight).first ?? 1
            switch coding {
            case "gzip", "x-gzip": named = (named ?? false) || weight > 0
            case "*": wildcard = weight > 0
            default: continue
            }
        }
        return named ?? wildcard ?? false
    }

    /// The `q` of one parameter (`q=0.5`), nil for any other parameter; an unreadable weight counts as 0.
    private static func weight(_ parameter: Substring) -> Double? {
        let pair = parameter.split(separator: "=", maxSplits: 1)
        guard pair.count == 2, pair[0].withoutOptionalWhitespace.lowercased() == "q" else { return nil }
        return Double(pair[1].withoutOptionalWhitespace).map { min(max($0, 0), 1) } ?? 0
    }
}
