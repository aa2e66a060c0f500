import Foundation
import HTTPTypes
import Hummingbird

/// The owners' web dashboard: plain HTML, CSS and JavaScript from `Resources/dashboard`,
/// served at `/` (the page) and `/dashboard/NAME` (its files).
///
/// The files are read once at start into memory and only those names are served, so no
/// request path ever reaches the file system.
enum DashboardRoutes {
    struct Asset: Sendable {
        var body: ByteBuffer
        var contentType: String
    }

    /// The page may load and call only its own origin: a stored bike name that slipped past
    /// escaping could still not load or send anything elsewhere.
    static let securityHeaders: HTTPFields = [
        HTTPField.Name("Content-Security-Policy")!: "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
        HTTPField.Name("X-Content-Type-Options")!: "nosniff",
        HTTPField.Name("Referrer-Policy")!: "no-referrer",
        .cacheControl: "no-cache",
    ]

    static func add(to router: Router<AppContext>) {
        let assets = load()
        router.get("/") { _, _ in
            try response(assets["index.html"])
        }
        router.get("/dashboard/{file}") { _, context in
            try response(context.parameters.get("file").flatMap { assets[$0] })
        }
    }

    static func response(_ asset: Asset?) throws -> Response {
        guard let asset else { throw APIError(.notFound, "not_found", "no such dashboard file") }
        var headers = securityHeaders
        headers[.contentType] = asset.contentType
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: asset.body))
    }

    /// Every file in the bundled dashboard folder, by name.
    static func load() -> [String: Asset] {
        guard let folder = Bundle.module.url(forResource: "dashboard", withExtension: nil),
              let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path)
        else { return [:] }
        var assets: [String: Asset] = [:]
        for name in names {
            guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path) else { continue }
            assets[name] = Asset(body: ByteBuffer(bytes: data), contentType: contentType(name))
        }
        return assets
    }

    static func contentType(_ name: String) -> String {
        switch (name as NSString).pathExtension {
        case "html": "text/html; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        default: "application/octet-stream"
        }
    }
}
