import Testing
@testable import Server

/// `serve --map-tiles`: the template decides the one image host the dashboard's CSP allows.
@Suite struct MapTilesTests {
    @Test func openStreetMapIsTheDefault() throws {
        let checked = try MapTiles(template: MapTiles.openStreetMap.template)
        #expect(checked == MapTiles.openStreetMap)
        #expect(checked.origin == "https://tile.openstreetmap.org")
        #expect(checked.attribution == "© OpenStreetMap contributors")
    }

    @Test func originIsSchemeHostAndPort() throws {
        #expect(try MapTiles(template: "http://127.0.0.1:8081/{z}/{x}/{y}.png").origin == "http://127.0.0.1:8081")
        #expect(try MapTiles(template: "https://{s}.Tiles.Example.org/osm/{z}/{x}/{y}.png?key=abc").origin == "https://*.tiles.example.org")
        #expect(try MapTiles(template: "HTTPS://[::1]:9000/{z}/{y}/{x}").origin == "https://[::1]:9000")
    }

    @Test func refusesWhatTheCSPCannotNameOrLeafletCannotUse() {
        for bad in ["tile.openstreetmap.org/{z}/{x}/{y}.png", "ftp://tiles.example.org/{z}/{x}/{y}.png",
                    "https://tiles.example.org/{x}/{y}.png", "https:///{z}/{x}/{y}.png",
                    "https://user@tiles.example.org/{z}/{x}/{y}.png", "https://tiles.example.org;script-src *//{z}/{x}/{y}",
                    "https://tiles example.org/{z}/{x}/{y}.png", "https://{r}.example.org/{z}/{x}/{y}.png"] {
            #expect(throws: MapTilesError.self, "accepted \(bad)") { try MapTiles(template: bad) }
        }
        #expect(throws: MapTilesError.self) { try MapTiles(template: MapTiles.openStreetMap.template, attribution: "<b>x</b>") }
    }
}
