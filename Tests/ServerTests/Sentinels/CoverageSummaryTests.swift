import BikebeaconAPI
import Testing
@testable import Server

/// The theft report's coverage paragraph on its own: the bike page's words, times in UTC.
@Suite struct CoverageSummaryTests {
    static let place = CoveragePlace(latitude: 52.0907, longitude: 5.1214, accuracy: nil, time: "2026-11-21T20:00:00.000Z", sentinel: "Cafe Rosa")

    static func coverage(_ sentinels: [CoverageSentinel], listening: Int, missing: Bool = true) -> BikeCoverage {
        BikeCoverage(place: place, radiusMetres: 1000, missingSince: missing ? "2026-11-21T19:00:00.000Z" : nil, listening: listening, sentinels: sentinels)
    }

    @Test func gapsInOneDayAcrossMidnightAndOngoing() {
        let rosa = CoverageSentinel(name: "Cafe Rosa", distanceMetres: 0, state: "listening", notListening: [
            CoverageGap(from: "2026-11-21T21:05:00.000Z", until: "2026-11-21T23:40:30.000Z", state: "silent"),
            CoverageGap(from: "2026-11-21T23:55:00.000Z", until: "2026-11-22T00:10:00.000Z", state: "degraded"),
        ])
        let station = CoverageSentinel(name: "Station", distanceMetres: 500, state: "silent", notListening: [
            CoverageGap(from: "2026-11-22T01:00:00.000Z", until: nil, state: "silent"),
        ])
        #expect(CoverageSummary.text(Self.coverage([rosa, station], listening: 1)) ==
            "Within 1 km of the last place: 2 public sentinels, 1 of them listening now. "
            + "Cafe Rosa: not listening 2026-11-21 21:05–23:40, 2026-11-21 23:55–2026-11-22 00:10. Station: not listening since 2026-11-22 01:00.")
    }

    @Test func everyoneListened() {
        let rosa = CoverageSentinel(name: "Cafe Rosa", distanceMetres: 0, state: "listening", notListening: [])
        #expect(CoverageSummary.text(Self.coverage([rosa], listening: 1)) ==
            "Within 1 km of the last place: 1 public sentinel, listening now. All of them listened while the bike was missing.")
        #expect(CoverageSummary.text(Self.coverage([rosa, rosa], listening: 0, missing: false)) ==
            "Within 1 km of the last place: 2 public sentinels, none of them listening now.")
    }

    @Test func nothingToCount() {
        #expect(CoverageSummary.text(Self.coverage([], listening: 0)) ==
            "No public sentinel within 1 km of the last place: not being heard there says little.")
        #expect(CoverageSummary.text(BikeCoverage(place: nil, radiusMetres: 1000, missingSince: nil, listening: 0, sentinels: [])).hasPrefix(
            "Coverage: no sentinel has heard this bike at a known place yet"))
    }
}
