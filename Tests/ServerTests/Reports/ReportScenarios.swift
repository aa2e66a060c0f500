import BikebeaconAPI
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport
@testable import Server

/// The theft report: everything the police ask for, and a QR code that scans back to the share link.
enum ReportScenarios {
    static func printable(_ backend: Backend) async throws {
        let harness = try await Harness.make(backend)
        let (_, sentinel) = try await harness.sentinel("Garage Nord", latitude: 52.0907, longitude: 5.1214)
        try await harness.run { client in
            let ann = try await client.owner("ann@example.org")
            let bike = try await client.bike(ann)
            #expect(try await client.send(.patch, "/v1/bikes/\(bike.id)", token: ann,
                                          json: BikeFields(engineNumber: "EN-77", recoveryContact: "Roadside <24h> 0800 123 456")).status == .ok)
            _ = try await client.send(.post, "/v1/bikes/\(bike.id)/missing", token: ann)
            _ = try await client.send(.post, "/v1/sightings", token: sentinel, json: Fixture.Batch(sightings: [
                Fixture.sighting(event: "arrived", time: "2026-11-21T10:00:00Z"), Fixture.sighting(event: "departed", time: "2026-11-21T10:20:00Z")]))
            let share = try client.decode(Share.self, try await client.send(.post, "/v1/bikes/\(bike.id)/shares", token: ann,
                                                                             json: ShareRequest(expiresIn: 720, label: "Police")))
            let token = try #require(share.token)

            let name = "Ann O'Neill & Co"
            // The token in the path: a query string is what proxies and analytics log.
            let response = try await client.send(.get, "/v1/bikes/\(bike.id)/report/\(token)?owner=\(name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")",
                                                 token: ann)
            #expect(response.status == .ok && response.headers[.contentType]?.hasPrefix("text/html") == true)
            let html = String(buffer: response.body)
            for expected in ["Ann O&#39;Neill &amp; Co", "BR123", "EN-77", "Roadside &lt;24h&gt; 0800 123 456", "Missing since",
                             "at Garage Nord (52.0907, 5.1214)", "52.0907, 5.1214", "2026-11-21T10:00:00.000Z", "2026-11-21T10:20:00.000Z",
                             try #require(share.url), "/dashboard/report.css"] {
                #expect(html.contains(expected), "the report lacks \(expected)")
            }
            // Oldest first, as a statement reads.
            let arrived = try #require(html.range(of: "10:00:00.000Z")), departed = try #require(html.range(of: "10:20:00.000Z"))
            #expect(arrived.lowerBound < departed.lowerBound)
            #expect(try await decodeQR(in: html) == share.url)

            // Without a share link the report says how to add one; a link of another bike, or a revoked one, is refused.
            let plain = String(buffer: try await client.send(.get, "/v1/bikes/\(bike.id)/report", token: ann).body)
            #expect(plain.contains("No share link on this report") && !plain.contains("<svg"))
            expectError(try await client.send(.get, "/v1/bikes/\(bike.id)/report/bbl_nonsense", token: ann), .badRequest)
            // The token in a query string is refused, saying where it goes instead.
            let queried = try await client.send(.get, "/v1/bikes/\(bike.id)/report?share=\(token)", token: ann)
            expectError(queried, .badRequest)
            #expect(String(buffer: queried.body).contains("no longer taken in the query string"))
            #expect(try await client.send(.delete, "/v1/bikes/\(bike.id)/shares/\(share.id)", token: ann).status == .noContent)
            expectError(try await client.send(.get, "/v1/bikes/\(bike.id)/report/\(token)", token: ann), .badRequest)
            let bob = try await client.owner("bob@example.org")
            expectError(try await client.send(.get, "/v1/bikes/\(bike.id)/report", token: bob), .notFound)
        }
    }

    /// Reads the report's QR code as a scanner would: its SVG modules drawn into a greyscale image, decoded by zbar.
    static func decodeQR(in html: String) async throws -> String {
        let zbarimg = "/usr/bin/zbarimg"
        try #require(FileManager.default.isExecutableFile(atPath: zbarimg),
                     "zbarimg is not installed: run scripts/setup --test (Debian's zbar-tools) to check the report's QR code")
        let svg = try #require(html.range(of: "<svg class=\"qr\"").map { String(html[$0.lowerBound...]) }, "the report has no QR code")
        let viewBox = try #require(svg.firstMatch(of: /viewBox="0 0 (\d+) \d+"/)?.1)
        let side = try #require(Int(viewBox))
        let path = try #require(svg.firstMatch(of: /<path d="([^"]*)"/)?.1)
        var dark = Set<Int>()
        for match in path.matches(of: /M(\d+) (\d+)h1v1h-1z/) {
            let x = try #require(Int(match.1)), y = try #require(Int(match.2))
            dark.insert(x + y * side)
        }
        let scale = 6
        var pixels = [UInt8]()
        for y in 0..<(side * scale) {
            for x in 0..<(side * scale) { pixels.append(dark.contains(x / scale + (y / scale) * side) ? 0 : 255) }
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bikebeacon-qr-\(UUID().uuidString).pgm")
        defer { try? FileManager.default.removeItem(at: file) }
        try (Data("P5\n\(side * scale) \(side * scale)\n255\n".utf8) + Data(pixels)).write(to: file)
        let result = try await run(path: zbarimg, ["--raw", "-q", file.path])
        #expect(result.status == 0, "zbarimg: \(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
