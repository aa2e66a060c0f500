import BikebeaconAPI

/// The theft report: one printable page with what the police ask for. Pure: the route gathers the
/// data and the QR code; this only lays it out, every value escaped.
struct TheftReport: Sendable {
    var bike: Bike
    /// As the owner typed it for this report; the server keeps no name.
    var ownerName: String
    /// Oldest first.
    var sightings: [SightingRecord]
    var shareURL: String?
    /// The share link as a QR code, or why there is none.
    var qr: Result<QRMatrix, QREncoder.Failure>?
    /// Who listens around the last place, as a stranger may see it (never a home sentinel).
    var coverage: BikeCoverage?
    var generatedAt: String
    /// Where the bike most likely is, as a stranger may see it (`SightingEstimates`).
    var estimate: PositionEstimate? = nil

    /// A sighting by a home sentinel, shown here only roughly (`SightingPrivacy`).
    static func isPrivate(_ sighting: SightingRecord) -> Bool { sighting.sentinel == SightingPrivacy.privateName }

    func html() -> String {
        let e = HTML.escape
        var rows: [(String, String)] = [
            ("Owner", ownerName.isEmpty ? "(not given)" : ownerName),
            ("Bike", bike.name), ("Make", bike.make), ("Model", bike.model), ("Colour", bike.colour),
            ("Frame number", bike.frameNumber), ("Engine number", bike.engineNumber),
            ("Beacon tag", bike.beacon.description),
            ("Missing since", bike.missingSince ?? "not reported missing"),
        ]
        if !bike.recoveryContact.isEmpty { rows.append(("Recovery contact", bike.recoveryContact)) }
        if !bike.notes.isEmpty { rows.append(("Notes", bike.notes)) }
        let details = rows.map { "<dt>\(e($0.0))</dt><dd>\(e($0.1.isEmpty ? "–" : $0.1))</dd>" }.joined()
        let sightingRows = sightings.map { s -> String in
            let coordinates = s.latitude.flatMap { lat in s.longitude.map { "\(SightingRecord.degrees(lat)), \(SightingRecord.degrees($0))" } } ?? "–"
            let distance = s.distance.map { "~\(Int($0.rounded())) m" } ?? "–"
            let place = Self.isPrivate(s)
                ? "\(s.place): the exact place is available to the police from the network's operator, reference \(s.id)"
                : s.place
            return "<tr><td>\(e(s.time))</td><td>\(e(s.event))</td><td>\(e(place))</td><td>\(e(coordinates))</td><td>\(e(s.zone)) \(e(distance))</td></tr>"
        }.joined()
        let privateNote = sightings.contains(where: Self.isPrivate)
            ? "<p class=\"private\">Sightings by \(e(SightingPrivacy.privateName)) (a sentinel at someone's home) show a position rounded to about \(Int(SightingPrivacy.gridAccuracy)) m. The network's operator gives the police the exact place on request; quote the reference in the Place column.</p>"
            : ""
        let share: String
        switch (shareURL, qr) {
        case let (url?, .success(matrix)?):
            share = "<section class=\"share\"><h2>Live trail</h2>\(matrix.svg(title: "QR code of the share link"))<p>Scan the code or open <a href=\"\(e(url))\">\(e(url))</a> to see where the bike is heard now, without an account.</p></section>"
        case let (url?, .failure(error)?):
            share = "<section class=\"share\"><h2>Live trail</h2><p>Open <a href=\"\(e(url))\">\(e(url))</a> to see where the bike is heard now. (No QR code: \(e(error.description)).)</p></section>"
        default:
            share = "<section class=\"share\"><h2>Live trail</h2><p>No share link on this report: make one on the bike's page to add its QR code.</p></section>"
        }
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Theft report: \(e(bike.name))</title><link rel="stylesheet" href="/dashboard/report.css"></head>
            <body><main class="report">
            <h1>Theft report: \(e(bike.name))</h1>
            <p class="generated">Made \(e(generatedAt)) by bikebeacon. Times are UTC.</p>
            <dl class="details">\(details)</dl>
            \(share)
            \(estimate.map { "<section class=\"estimate\"><h2>Most likely position</h2><p>\(e($0.words.prefix(1).uppercased() + $0.words.dropFirst())) (around \(e(SightingEstimate.coordinates($0.latitude, $0.longitude)))), from the newest sightings below.</p></section>" } ?? "")
            \(coverage.map { "<section class=\"coverage\"><h2>Coverage</h2><p>\(e(CoverageSummary.text($0)))</p></section>" } ?? "")
            <section><h2>Sightings (\(sightings.count))</h2>
            \(privateNote)
            \(sightings.isEmpty ? "<p>No sentinel has heard the bike's tag yet.</p>" : "<table><thead><tr><th scope=\"col\">Time</th><th scope=\"col\">Event</th><th scope=\"col\">Place</th><th scope=\"col\">Coordinates</th><th scope=\"col\">Zone, distance</th></tr></thead><tbody>\(sightingRows)</tbody></table>")
            </section></main></body></html>
            """
    }
}
