import BikebeaconAPI
import Owners
import Testing

/// The owner's coverage in words, as the demo prints it: what "not heard" means around the bike's last place.
struct CoverageTextTests {
    static let place = CoveragePlace(latitude: 52.0907, longitude: 5.1214, accuracy: nil, time: "2026-11-26T03:40:00.000Z",
                                     sentinel: "Cafe Rosa, Utrecht")

    static func coverage(_ sentinels: [CoverageSentinel], listening: Int, radius: Int = 1000) -> BikeCoverage {
        BikeCoverage(place: place, radiusMetres: radius, missingSince: "2026-11-26T03:39:00.000Z", listening: listening, sentinels: sentinels)
    }

    @Test func aClosedGapIsGivenFromAndUntilOnTheClock() {
        let cafe = CoverageSentinel(name: "Cafe Rosa, Utrecht", distanceMetres: 0, state: "listening", notListening: [
            CoverageGap(from: "2026-11-26T03:41:05.120Z", until: "2026-11-26T03:41:14.900Z", state: "silent"),
        ])
        #expect(CoverageText.lines(Self.coverage([cafe], listening: 1)) == [
            "Within 1 km of the last place: 1 public sentinel, listening now.",
            "Cafe Rosa, Utrecht: not listening 03:41:05–03:41:14 UTC.",
        ])
    }

    @Test func anOpenGapAndAnotherDaySayWhen() {
        let cafe = CoverageSentinel(name: "Cafe Rosa", distanceMetres: 0, state: "silent", notListening: [
            CoverageGap(from: "2026-11-25T23:50:00.000Z", until: "2026-11-26T00:10:00.000Z", state: "degraded"),
            CoverageGap(from: "2026-11-26T03:00:00.000Z", until: nil, state: "silent"),
        ])
        let station = CoverageSentinel(name: "Station", distanceMetres: 640, state: "listening", notListening: [])
        #expect(CoverageText.lines(Self.coverage([cafe, station], listening: 1, radius: 1500)) == [
            "Within 1.5 km of the last place: 2 public sentinels, 1 of them listening now.",
            "Cafe Rosa: not listening 23:50:00–2026-11-26 00:10:00 UTC, since 2026-11-26 03:00:00 UTC.",
        ])
    }

    @Test func noGapNoSentinelAndNoPlaceAreSaid() {
        let station = CoverageSentinel(name: "Station", distanceMetres: 640, state: "listening", notListening: [])
        #expect(CoverageText.lines(Self.coverage([station], listening: 1)).last == "All of them listened while the bike was missing.")
        #expect(CoverageText.lines(Self.coverage([], listening: 0)) == [
            "No public sentinel within 1 km of the last place: not being heard there says little.",
        ])
        let nowhere = BikeCoverage(place: nil, radiusMetres: 1000, missingSince: nil, listening: 0, sentinels: [])
        #expect(CoverageText.lines(nowhere).first?.hasPrefix("No sentinel has heard this bike at a known place yet") == true)
    }
}
