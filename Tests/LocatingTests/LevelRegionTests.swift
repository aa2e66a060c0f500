import Foundation
@testable import Locating
import Testing

/// Where the levels still allow the tag beyond the fit's own spread: four uncalibrated sentinels on a square 100 m
/// across, the levels the default model's (−59 dBm at 1 m, n = 1.5) with nothing off, as the server fuses them.
struct LevelRegionTests {
    let corners = [PlanePoint(x: 0, y: 0), PlanePoint(x: 100, y: 0), PlanePoint(x: 0, y: 100), PlanePoint(x: 100, y: 100)]
    let configuration = LocatorConfiguration()

    func fit(bikeAt bike: PlanePoint, scanRegion: Bool) throws -> PositionFit {
        let observations = corners.map {
            Observation(position: $0, level: -59 - 15 * log10($0.distance(to: bike)), rssiAt1m: -59, exponent: 1.5, shadowing: 9)
        }
        return try #require(PositionFit.fit(observations, configuration: configuration,
                                            offsetSpread: configuration.initialOffsetSpread([.none]), scanRegion: scanRegion))
    }

    /// Among the sentinels the cost is as round as the fit assumes: nothing stretches (the scan's first step past the
    /// fit's 90 % extent lands on it), and the spread is the fit's.
    @Test(arguments: [PlanePoint(x: 50, y: 50), PlanePoint(x: 30, y: 40), PlanePoint(x: 80, y: 20)])
    func aBikeAmongTheSentinelsStretchesNothing(bike: PlanePoint) throws {
        let scanned = try fit(bikeAt: bike, scanRegion: true)
        let plain = try fit(bikeAt: bike, scanRegion: false)
        #expect(scanned.stretch < 1.001, "stretched \(scanned.stretch) times")
        #expect(scanned.spread < plain.spread * 1.001, "\(scanned.spread) m against \(plain.spread) m")
    }

    /// Outside, the fit's point lies inside the square, where a weaker tag gives the same levels; the region reaches out
    /// to the bike, and the spread grows with it. Not scanned (the locator's fits), nothing changes.
    @Test(arguments: [50.0, 100])
    func aBikeOutsideTheSentinelsStretchesTheSpread(beyond: Double) throws {
        let bike = PlanePoint(x: 30, y: -beyond)
        let scanned = try fit(bikeAt: bike, scanRegion: true), plain = try fit(bikeAt: bike, scanRegion: false)
        #expect(scanned.point.y > 0, "the fit's point lies inside the square: \(scanned.point)")
        #expect(scanned.stretch >= 1.2, "stretched \(scanned.stretch) times")
        #expect(scanned.spread > plain.spread * 1.1, "\(scanned.spread) m against \(plain.spread) m")
        #expect(plain.stretch == 1)
    }

    /// A bus's 500 fixes are scanned as every n-th, each weighing n: the cost's scale, and so the region, stays.
    @Test func manyLevelsAreScannedInPartAtTheirWholeWeight() {
        let terms = (0..<500).map { index in
            LevelRegion.Term(observation: Observation(position: PlanePoint(x: Double(index), y: 0), level: -80, rssiAt1m: -59, exponent: 1.5,
                                                      shadowing: 9), weight: 1 / 81)
        }
        let region = LevelRegion(terms, offsetInformation: 0.01, priorInformation: 0.0001, centre: PlanePoint(x: 250, y: 0), nearestRange: 0.5)
        #expect(region.terms.count <= LevelRegion.mostTerms)
        let weight = region.terms.map(\.weight).reduce(0, +)
        #expect(abs(weight - 500.0 / 81) / (500.0 / 81) < 0.05, "the scanned levels weigh \(weight), all 500 \(500.0 / 81)")
    }
}
