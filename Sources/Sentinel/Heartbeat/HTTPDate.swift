import BikebeaconAPI

/// The HTTP `Date` header (RFC 9110 §5.6.7, IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`) as
/// epoch seconds; the obsolete formats are not sent by any server this sentinel talks to.
public enum HTTPDate {
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// How far past an answer's `Date` the server's clock stood, in the middle: our server (Hummingbird) sends whole
    /// seconds, truncated, from a cache it refreshes once a second, so its clock stood from the `Date` to 2 s past it.
    /// (Taken as half a second, the middle of the truncation alone, a test measuring this machine's own clock through
    /// the server read 0.92 s off, past that half second and half the round trip.)
    public static let serverClockPastDate = 1.0

    public static func parse(_ text: String) -> Double? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[0].count == 4, parts[0].hasSuffix(","), parts[5] == "GMT", parts[1].count == 2,
              parts[3].count == 4, parts[4].count == 8, let month = months.firstIndex(of: String(parts[2]))
        else { return nil }
        let month2 = month < 9 ? "0\(month + 1)" : "\(month + 1)"
        // The same instant in RFC 3339, read by the API's strict parser (which checks every digit and range).
        return Timestamp.parse("\(parts[3])-\(month2)-\(parts[1])T\(parts[4])Z").map { Double($0) / 1000 }
    }
}
