import BikebeaconAPI
import Testing
@testable import Sentinel

/// The `calibration:` block that `bikebeacon calibrate --save sentinel` prints: read into the
/// estimator's settings the sentinel runs on, checked, and misspellings named with their line.
@Suite struct CalibrationConfigurationTests {
    static let base = """
    server: {url: "http://127.0.0.1:8080", token: t}

    """

    @Test func theBlockSetsTheReceiverOffsetAndExponent() throws {
        let c = try SentinelConfiguration.parse(yaml: Self.base + "calibration:\n  rxOffset: -13.0\n  pathLossExponent: 2.35\n", environment: [:])
        try c.validate()
        #expect(c.proximity.rxOffset == -13 && c.proximity.pathLossExponent == 2.35)
        let plain = try SentinelConfiguration.parse(yaml: Self.base, environment: [:])
        #expect(plain.proximity == .init(), "no block: the estimator's defaults")
        // What the heartbeat tells the server (#44): two-point with both; one-point with the offset alone; an exponent
        // without the receiver's offset leaves its levels as read, so it claims nothing.
        #expect(c.pathLoss == SentinelPathLoss(calibration: .twoPoint, exponent: 2.35, nearFieldExponent: 2))
        #expect(plain.pathLoss == SentinelPathLoss(calibration: .none, exponent: 1.5, nearFieldExponent: 2))
        let offset = try SentinelConfiguration.parse(yaml: Self.base + "calibration:\n  rxOffset: 0\n", environment: [:])
        #expect(offset.pathLoss.calibration == .onePoint)
        let exponent = try SentinelConfiguration.parse(yaml: Self.base + "calibration:\n  pathLossExponent: 2.35\n", environment: [:])
        #expect(exponent.pathLoss.calibration == .none)
    }

    @Test func implausibleValuesAreRefused() throws {
        for (block, message) in [("rxOffset: 90", "calibration.rxOffset must be -40…40 dB"), ("pathLossExponent: 0", "calibration.pathLossExponent must be 0.5…6")] {
            let c = try SentinelConfiguration.parse(yaml: Self.base + "calibration: {\(block)}\n", environment: [:])
            let error = #expect(throws: ConfigurationError.self) { try c.validate() }
            #expect(error?.description.contains(message) == true, "\(String(describing: error))")
        }
    }

    @Test func aMisspeltKeyNamesItsLine() {
        let text = StrictConfigurationTests.problem(Self.base + "calibration:\n  rxOfset: 3\n")
        #expect(text.contains("line 3") && text.contains("'calibration.rxOfset'") && text.contains("did you mean 'rxOffset'"), "\(text)")
    }
}
