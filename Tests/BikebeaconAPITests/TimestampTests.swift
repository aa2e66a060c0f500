import BikebeaconAPI
import Testing

/// RFC 3339 edge cases found by `scripts/fuzz` (Fuzz/Timestamp): every time the API accepts must be
/// one it can write back, or a client posting it gets a reply it cannot read.
@Suite struct TimestampTests {
    @Test func anOffsetThatLeavesTheFourDigitYearsIsRefused() {
        // 23:59:59 on the last day of 9999 at -00:31 is 00:30:59 in year 10000 UTC; format would
        // write "10000-01-01T00:30:59.000Z", which no RFC 3339 reader (this one included) accepts.
        #expect(Timestamp.parse("9999-12-31T23:59:59-00:31") == nil)
        #expect(Timestamp.parse("0000-01-01T00:00:00+00:01") == nil)
    }

    @Test func theEdgesOfTheFourDigitYearsRoundTrip() throws {
        for text in ["9999-12-31T23:59:59.999Z", "0000-01-01T00:00:00.000Z", "9999-12-31T23:59:59-00:00",
                     "0000-01-01T00:01:00+00:01", "1969-12-31T23:59:59.999Z"] {
            let milliseconds = try #require(Timestamp.parse(text), "refused \(text)")
            #expect(Timestamp.parse(Timestamp.format(milliseconds: milliseconds)) == milliseconds, "\(text)")
        }
    }
}
