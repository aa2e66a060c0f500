@testable import Benchmarks
import Proximity
import Testing

/// The anchor methods reproduce the published constants of design §5.
struct AnchorTests {
    /// With every reading at the measured power, each curve says about 1 m.
    @Test(arguments: ProximityMethod.allCases)
    func readingsAtMeasuredPowerAreNear(method: ProximityMethod) {
        var estimator = method.makeEstimator(measuredPower: -60)
        var zone = Zone.unknown
        for time in 0..<30 { zone = estimator.zone(time: Double(time), rssi: -60) }
        #expect(zone == .near)
    }

    /// The filtered anchors ignore one wild reading; the unfiltered ones follow it.
    @Test func filtersDecideWhetherASpikeMovesTheZone() {
        for method in ProximityMethod.allCases {
            var estimator = method.makeEstimator(measuredPower: -60)
            for time in 0..<30 { _ = estimator.zone(time: Double(time), rssi: -65) }
            let zone = estimator.zone(time: 30, rssi: -30)
            let unfiltered = method == .rawLogDistance || method == .homeAssistant
            #expect((zone == .immediate) == unfiltered, "\(method.rawValue): \(zone)")
        }
    }

    @Test func curvesMatchTheirConstants() {
        #expect(abs(nexusCurveDistance(rssi: -60, measuredPower: -60) - (0.89976 + 0.111)) < 1e-12)
        #expect(RSSISummary.quantile([1, 2, 3, 4], 0.25) == 1.75)
    }
}
