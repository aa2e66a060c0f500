import Foundation
import Proximity
import Testing

/// Site calibration: what one or two measured distances say about the path-loss model.
struct SiteCalibrationTests {
    @Test func twoDistancesFitTheLevelAtOneMetreAndTheExponent() throws {
        // 1 m at -59, 3 m at -71: n = 12 / (10·log10 3) = 2.515.
        let fit = try SiteCalibration.fit([CalibrationPoint(distance: 1, rssi: -59), CalibrationPoint(distance: 3, rssi: -71)], exponent: 2)
        #expect(abs(fit.measuredPower + 59) < 1e-9)
        #expect(abs(fit.exponent - 12 / (10 * log10(3))) < 1e-9)
        // Points away from 1 m extrapolate the level at 1 m along the fitted line.
        let far = try SiteCalibration.fit([CalibrationPoint(distance: 2, rssi: -65), CalibrationPoint(distance: 4, rssi: -71)], exponent: 2)
        #expect(abs(far.exponent - 6 / (10 * log10(2))) < 1e-9)
        #expect(abs(far.measuredPower - (-65 + 10 * far.exponent * log10(2))) < 1e-9)
    }

    @Test func threeDistancesAreALeastSquaresFit() throws {
        // On the line P = -60, n = 2 but for +2 dB at 2 m: the fit moves, the exponent stays near 2.
        let points = [1.0, 2, 4].map { CalibrationPoint(distance: $0, rssi: -60 - 20 * log10($0) + ($0 == 2 ? 2 : 0)) }
        let fit = try SiteCalibration.fit(points, exponent: 3)
        #expect(abs(fit.exponent - 2) < 0.1 && abs(fit.measuredPower + 60) < 1.5, "\(fit)")
    }

    @Test func oneDistanceKeepsTheExponentAndMovesTheLevelToOneMetre() throws {
        let fit = try SiteCalibration.fit([CalibrationPoint(distance: 2, rssi: -66), CalibrationPoint(distance: 2, rssi: -64)], exponent: 2)
        #expect(fit.exponent == 2)
        #expect(abs(fit.measuredPower - (-65 + 20 * log10(2))) < 1e-9)
    }

    @Test func aFartherPointThatIsNotWeakerIsRefused() {
        #expect(throws: CalibrationError.flat(exponent: 0)) {
            try SiteCalibration.fit([CalibrationPoint(distance: 1, rssi: -60), CalibrationPoint(distance: 3, rssi: -60)], exponent: 2)
        }
        #expect(throws: CalibrationError.self) {
            try SiteCalibration.fit([CalibrationPoint(distance: 1, rssi: -60), CalibrationPoint(distance: 3, rssi: -55)], exponent: 2)
        }
    }

    @Test(arguments: [("3=-71", CalibrationPoint(distance: 3, rssi: -71)), ("0.5=-52.5", CalibrationPoint(distance: 0.5, rssi: -52.5))])
    func parsesDistanceEqualsRSSI(_ text: String, _ expected: CalibrationPoint) throws {
        #expect(try CalibrationPoint(parsing: text) == expected)
    }

    @Test(arguments: ["3", "3=", "=-70", "3=-70=1", "three=-70", "-1=-70", "0=-70", "3=5", "3=-200", "nan=-70"])
    func refusesMalformedPoints(_ text: String) {
        #expect(throws: CalibrationError.self) { try CalibrationPoint(parsing: text) }
    }

    @Test func summaryGivesMedianQuartilesAndCount() throws {
        let summary = try #require(RSSISummary([-60, -50, -55, -52, -70]))
        #expect(summary.median == -55 && summary.lowerQuartile == -60 && summary.upperQuartile == -52 && summary.count == 5)
        #expect(summary.interquartileRange == 8)
        #expect(RSSISummary([]) == nil)
    }
}
