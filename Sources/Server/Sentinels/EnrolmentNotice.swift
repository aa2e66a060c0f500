import BikebeaconAPI

/// What `sentinels add` and `sentinels rotate` print about a new enrolment code: the code, the
/// command to run on the Pi and, with the server's public URL, that command's URL as a QR code.
public enum EnrolmentNotice {
    /// The URL `bikebeacon enroll` takes: the server's address, `/enrol#`, the code. The code is the fragment, which no
    /// browser sends: a phone that scans the QR code asks for `/enrol` only, so the live code reaches no proxy's log,
    /// and the page (`EnrolmentPage`) drops it from the browser's history (#43).
    public static func url(publicURL: String, code: String) -> String {
        (publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL) + "/enrol#" + code
    }

    /// The lines to print; the QR code drawn by libqrencode when it can be loaded.
    public static func text(code: String, expiresMilliseconds: Int64, publicURL: String?) -> String {
        text(code: code, expiresMilliseconds: expiresMilliseconds, publicURL: publicURL) { text in
            Result { () throws(QREncoder.Failure) in try QREncoder.encode(text) }
        }
    }

    static func text(code: String, expiresMilliseconds: Int64, publicURL: String?,
                     encode: (String) -> Result<QRMatrix, QREncoder.Failure>) -> String {
        var lines = ["its enrolment code (works once, until \(Timestamp.format(milliseconds: expiresMilliseconds))): \(code)"]
        guard let publicURL else {
            lines.append("on the sentinel run: sudo bikebeacon enroll SERVER_URL \(code)")
            lines.append("  (SERVER_URL: where the Pi reaches this server, e.g. https://bikes.example.org; give --public-url here for a URL and QR code)")
            return lines.joined(separator: "\n")
        }
        let link = url(publicURL: publicURL, code: code)
        lines.append("on the sentinel run: sudo bikebeacon enroll \(link)")
        switch encode(link) {
        case let .success(matrix): lines.append(matrix.halfBlocks())
        case let .failure(why): lines.append("(no QR code: \(why); the URL above carries the same)")
        }
        return lines.joined(separator: "\n")
    }
}

extension QRMatrix {
    /// The code in a terminal, two module rows per line with Unicode half blocks and a two-module
    /// quiet zone. Light modules are drawn, dark ones left as the background: right on the usual
    /// light-on-dark terminal (phone cameras read the inverted code a light terminal shows, too).
    func halfBlocks(quiet: Int = 2) -> String {
        let side = size + 2 * quiet
        func light(_ row: Int, _ column: Int) -> Bool {
            let (r, c) = (row - quiet, column - quiet)
            guard r >= 0, r < size, c >= 0, c < size else { return true }
            return !isDark(row: r, column: c)
        }
        return stride(from: 0, to: side, by: 2).map { row in
            String((0..<side).map { column -> Character in
                let top = light(row, column)
                // An odd side leaves the last line's lower half outside the code: the background.
                let bottom = row + 1 < side && light(row + 1, column)
                return switch (top, bottom) {
                case (true, true): "█"
                case (true, false): "▀"
                case (false, true): "▄"
                case (false, false): " "
                }
            })
        }.joined(separator: "\n")
    }
}
