import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// The owners' web dashboard: plain HTML, CSS and JavaScript from `Resources/dashboard`,
/// served at `/` (the page), `/sw.js` (its service worker, at the root so it controls the page)
/// and `/dashboard/NAME` (its files); Leaflet from Debian's `libjs-leaflet` at `/leaflet/`.
///
/// The files are read once at start into memory and only those names are served, so no
/// request path ever reaches the file system.
enum DashboardRoutes {
    struct Asset: Sendable {
        var body: ByteBuffer
        var contentType: String
    }

    /// The page may load and call only its own origin, plus map tiles from the one tile host:
    /// a stored bike name that slipped past escaping could still not load or send anything elsewhere.
    static func securityHeaders(tiles: MapTiles) -> HTTPFields {
        [
            HTTPField.Name("Content-Security-Policy")!: "default-src 'self'; img-src 'self' data: \(tiles.origin); object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
            HTTPField.Name("X-Content-Type-Options")!: "nosniff",
            HTTPField.Name("Referrer-Policy")!: "no-referrer",
            .cacheControl: "no-cache",
        ]
    }

    static func add(to router: Router<AppContext>, options: ServerOptions, logger: Logger) {
        let assets = load().merging(["config.json": config(options.mapTiles)]) { _, generated in generated }
        let leaflet = loadLeaflet(from: options.leafletDirectory, logger: logger)
        let headers = securityHeaders(tiles: options.mapTiles)
        router.get("/") { _, _ in
            try response(assets["index.html"], headers: headers)
        }
        router.get("/sw.js") { _, _ in
            try response(assets["sw.js"], headers: headers)
        }
        router.get("/dashboard/{file}") { _, context in
            try response(context.parameters.get("file").flatMap { assets[$0] }, headers: headers)
        }
        router.get("/leaflet/{file}") { _, context in
            try response(context.parameters.get("file").flatMap { leaflet[$0] }, headers: headers)
        }
        router.get("/leaflet/images/{file}") { _, context in
            try response(context.parameters.get("file").flatMap { leaflet["images/" + $0] }, headers: headers)
        }
    }

    static func response(_ asset: Asset?, headers: HTTPFields) throws -> Response {
        guard let asset else { throw APIError(.notFound, "not_found", "no such dashboard file") }
        var headers = headers
        headers[.contentType] = asset.contentType
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: asset.body))
    }

    /// What the page needs to know about this server that is not in its files: the map's tile source.
    static func config(_ tiles: MapTiles) -> Asset {
        struct Config: Encodable {
            var tiles: String
            var attribution: String
        }
        let data = (try? JSONEncoder().encode(Config(tiles: tiles.template, attribution: tiles.attribution))) ?? Data("{}".utf8)
        return Asset(body: ByteBuffer(bytes: data), contentType: "application/json")
    }

    /// Every file in the bundled dashboard folder, by name.
    static func load() -> [String: Asset] {
        guard let folder = Bundle.module.url(forResource: "dashboard", withExtension: nil) else { return [:] }
        return read(folder: folder.path, names: (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
    }

    /// Leaflet's script (minified when the package has it), style sheet and the images the style sheet names.
    static func loadLeaflet(from directory: String, logger: Logger) -> [String: Asset] {
        let images = ((try? FileManager.default.contentsOfDirectory(atPath: directory + "/images")) ?? []).map { "images/" + $0 }
        var assets = read(folder: directory, names: ["leaflet.css"] + images)
        assets["leaflet.js"] = asset(at: directory + "/leaflet.min.js") ?? asset(at: directory + "/leaflet.js")
        if assets["leaflet.js"] == nil || assets["leaflet.css"] == nil {
            logger.warning("dashboard map: Leaflet not found; the dashboard draws its offline sketch instead of a tiled map. Install Debian's libjs-leaflet.",
                           metadata: ["directory": "\(directory)"])
        }
        return assets
    }

    static func read(folder: String, names: [String]) -> [String: Asset] {
        var assets: [String: Asset] = [:]
        for name in names {
            assets[name] = asset(at: folder + "/" + name)
        }
        return assets
    }

    static func asset(at path: String) -> Asset? {
        FileManager.default.contents(atPath: path).map { Asset(body: ByteBuffer(bytes: $0), contentType: contentType(path)) }
    }

    static func contentType(_ name: String) -> String {
        switch (name as NSString).pathExtension {
        case "html": "text/html; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "json": "application/json"
        case "webmanifest": "application/manifest+json"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        default: "application/octet-stream"
        }
    }
}
