import Beacon
import Foundation
import Proximity
import Regions
import Testing

/// A reading's scatter is a property of the radio (dB), not of the path-loss exponent a site
/// was calibrated with: the same readings against the same level at the limit enter and leave at
/// the same moments whatever the exponent turns them into metres with.
struct MembershipScatterTests {
    static let bike = BeaconID(uuid: UUID(uuidString: "B5B182C7-EAB1-4988-AA99-B5C1517008D9")!, major: 1, minor: 25626)

    /// Readings wander ±3 dB about -63 dBm for a minute, then about -75 dBm; the limit sits where
    /// the model reads -69 dBm (measured power -59: 10 dB down).
    func transitions(exponent: Double) -> [RegionEvent] {
        let configuration = ProximityConfiguration(pathLossExponent: exponent)
        let limit = configuration.model(measuredPower: -59).distance(rssi: -69)
        let region = Region(name: "shed", beacon: Self.bike, maximumDistance: limit)
        var estimator = ProximityEstimator(configuration: configuration)
        var monitor = RegionMonitor(regions: [region])
        var events: [RegionEvent] = []
        for second in 0..<120 {
            let rssi = (second < 60 ? -63.0 : -75.0) + Double([-3, 1, 3, -1, 0, 2, -2][second % 7])
            let time = Double(second)
            events += monitor.tick(at: time)
            events += monitor.observe(Self.bike, estimator.update(time: time, rssi: rssi, measuredPower: -59))
        }
        return events
    }

    @Test func regionDecisionsDoNotDependOnTheExponent() throws {
        let free = transitions(exponent: 2), indoor = transitions(exponent: 3.5)
        let times = { (events: [RegionEvent]) in
            events.filter { if case .stillInside = $0 { false } else { true } }.map(\.time)
        }
        try #require(times(free).count == 2, "entered in the first minute and left in the second: \(free)")
        #expect(times(free)[0] < 10 && times(free)[1] > 60 && times(free)[1] < 75, "\(times(free))")
        #expect(times(indoor) == times(free))
    }
}
