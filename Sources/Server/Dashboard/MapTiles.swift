/// Where the dashboard's map fetches its tiles: a Leaflet URL template such as
/// `https://tile.openstreetmap.org/{z}/{x}/{y}.png`, and the attribution the tile provider asks for.
///
/// The page's Content-Security-Policy allows images from exactly the template's origin, so a
/// template is checked once at start: an absolute http(s) URL with `{z}`, `{x}` and `{y}`.
public struct MapTiles: Sendable, Equatable {
    public var template: String
    public var attribution: String
    /// The CSP source for the tile host: `scheme://host[:port]`, `{s}` subdomains as `*`.
    public var origin: String

    /// OpenStreetMap's standard tiles, with the attribution their tile usage policy requires.
    public static let openStreetMap = MapTiles(
        checked: "https://tile.openstreetmap.org/{z}/{x}/{y}.png", attribution: defaultAttribution,
        origin: "https://tile.openstreetmap.org")

    public static let defaultAttribution = "© OpenStreetMap contributors"

    private init(checked template: String, attribution: String, origin: String) {
        self.template = template
        self.attribution = attribution
        self.origin = origin
    }

    public init(template: String, attribution: String = MapTiles.defaultAttribution) throws(MapTilesError) {
        let lower = template.lowercased()
        guard let scheme = ["https://", "http://"].first(where: { lower.hasPrefix($0) }) else {
            throw MapTilesError("the tile URL must start with https:// (or http:// for a local tile server): \(template)")
        }
        for placeholder in ["{z}", "{x}", "{y}"] where !template.contains(placeholder) {
            throw MapTilesError("the tile URL needs \(placeholder) (like https://tile.openstreetmap.org/{z}/{x}/{y}.png): \(template)")
        }
        let rest = template.dropFirst(scheme.count)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let host = authority.replacingOccurrences(of: "{s}", with: "*")
        let allowed = host.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-.:*[]".contains($0)) }
        guard !host.isEmpty, allowed, !host.contains("{"), !authority.contains("@") else {
            throw MapTilesError("the tile URL's host must be a plain name, address or {s} subdomain: \(template)")
        }
        guard !attribution.contains(where: { $0 == "<" || $0 == ">" }) else {
            throw MapTilesError("the map attribution is plain text (no < or >): \(attribution)")
        }
        self.template = template
        self.attribution = attribution
        self.origin = scheme + host.lowercased()
    }
}

public struct MapTilesError: Error, Sendable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
