import Beacon
import Hummingbird

/// `POST /v1/beacons/parse`: the dashboard's "paste what the tag's app shows" box. The one parser
/// (`BeaconPaste`, also behind `bikes add --beacon`) runs here, so the page never reimplements it.
enum BeaconParseRoutes {
    /// What an owner pasted: a UUID with major and minor in any form, raw iBeacon hex, or a URL.
    struct Paste: Decodable {
        var text: String
    }

    /// Longer than any line a tag's app shows, short enough that no paste is expensive to scan.
    static let maxLength = 2000

    static func add(to router: RouterGroup<AppContext>, state: ServerState) {
        router.post("/v1/beacons/parse") { request, context in
            _ = try context.owner()
            let paste = try await JSONResponse.decode(Paste.self, from: request, context: context)
            guard paste.text.count <= maxLength else {
                throw APIError.invalid("'text' is longer than \(maxLength) characters: paste only the tag's line")
            }
            let beacon: BeaconID
            do throws(BeaconPaste.Failure) {
                beacon = try BeaconPaste.parse(paste.text)
            } catch {
                throw APIError(.badRequest, "invalid_beacon", error.description)
            }
            return try JSONResponse.make(beacon)
        }
    }
}
