import Benchmarks
import Foundation
import Proximity
import Testing

/// The zone filter's promises with realistic synthetic readings (6 dB shadowing, deep fades,
/// whole dB, jittered intervals): a parked bike keeps its zone, a walk changes it once, and
/// neither a first misleading reading nor an impossible value decides anything.
struct ZoneModelTests {
    /// A bike parked at 0.3 m, 1.5 m or 6 m, heard once or ten times a second for an hour with
    /// 6 dB of noise and deep fades: at most one zone change. (Parked exactly on a boundary,
    /// see `boundaryParkedBeaconDoesNotFlap`.)
    @Test(arguments: [0.3, 1.5, 6], [1.0, 10.0])
    func aStaticStreamHoldsItsZone(distance: Double, rate: Double) {
        var signal = Signal(seed: 11)
        var estimator = ProximityEstimator()
        // The level the estimator's own model expects there.
        let mean = estimator.configuration.model(measuredPower: signal.measuredPower).rssi(at: distance)
        var zones: [Zone] = []
        var time = 0.0
        while time < 3600 {
            let rssi = signal.reading(mean: mean, sigma: 6, fadeShare: 0.05)
            let zone = estimator.update(time: time, rssi: rssi, measuredPower: signal.measuredPower).zone
            if time >= 30 { zones.append(zone) }
            time += signal.interval(rate: rate)
        }
        #expect(changes(zones) <= 1, "\(changes(zones)) zone changes in an hour at \(distance) m")
        #expect(!zones.contains(.unknown))
    }

    /// Walking away at 0.5 m/s from 1 m to 10 m, heard once or five times a second: near, then
    /// far, one change, within 45 s of crossing 3 m (the median's lag plus the evidence the
    /// hysteresis wants; a region's exit does not wait for it, see RegionMonitor).
    @Test(arguments: [1.0, 5.0])
    func aWalkAcrossTheBoundaryChangesZoneOnce(rate: Double) throws {
        var signal = Signal(seed: 12)
        var estimator = ProximityEstimator()
        var seen: [(time: Double, zone: Zone)] = []
        var time = 0.0
        while time < 90 {
            let distance = time < 20 ? 1 : min(10, 1 + 0.5 * (time - 20))
            let rssi = signal.reading(mean: signal.rssi(at: distance), sigma: 4, fadeShare: 0.05)
            seen.append((time, estimator.update(time: time, rssi: rssi, measuredPower: signal.measuredPower).zone))
            time += signal.interval(rate: rate)
        }
        let zones = seen.filter { $0.time >= 10 }.map(\.zone)
        #expect(zones.first == .near)
        #expect(zones.last == .far)
        #expect(changes(zones) == 1, "\(zones)")
        // 3 m is crossed at t = 24 s.
        let far = try #require(seen.first { $0.zone == .far })
        #expect(far.time - 24 <= 45, "far at \(far.time) s")
    }

    /// Stale → unknown, with nothing carried over: after 30 s of silence the zone is unknown,
    /// and a beacon back at a different range starts from its new readings.
    @Test func staleGoesUnknownThenStartsFresh() {
        var signal = Signal(seed: 13)
        var estimator = ProximityEstimator()
        var time = 0.0
        while time < 120 {
            _ = estimator.update(time: time, rssi: signal.reading(mean: signal.rssi(at: 8), sigma: 4), measuredPower: signal.measuredPower)
            time += 1
        }
        #expect(estimator.estimate(at: time + 10).zone == .far)
        #expect(estimator.estimate(at: time + 31).zone == .unknown)
        let back = estimator.update(time: time + 60, rssi: signal.rssi(at: 1.5), measuredPower: signal.measuredPower)
        #expect(back.zone == .near)
    }

    /// The philotuxo walk's weakness in the first version: a first reading that says "far"
    /// for a beacon at 1.5 m. The zone follows the readings that come after it within 20 s.
    @Test func aMisleadingFirstReadingDoesNotHoldTheZone() throws {
        var signal = Signal(seed: 14)
        var estimator = ProximityEstimator()
        let first = estimator.update(time: 0, rssi: signal.rssi(at: 15), measuredPower: signal.measuredPower)
        #expect(first.zone == .far)
        var zone = first.zone
        var time = 0.5
        while time <= 20, zone != .near {
            zone = estimator.update(time: time, rssi: signal.reading(mean: signal.rssi(at: 1.5), sigma: 3), measuredPower: signal.measuredPower).zone
            time += 0.5
        }
        #expect(zone == .near, "still \(zone) after 20 s of readings at 1.5 m")
    }

    /// RSSI 0 or above, 127 and −127 are what controllers send for "no value": they neither
    /// move the estimate nor count as a reading.
    @Test(arguments: [0.0, 5, 127, -127, -128])
    func impossibleReadingsAreDropped(rssi: Double) throws {
        var estimator = ProximityEstimator()
        var time = 0.0
        var good = estimator.estimate(at: 0)
        while time < 20 {
            good = estimator.update(time: time, rssi: -65, measuredPower: -59)
            time += 1
        }
        let after = estimator.update(time: time, rssi: rssi, measuredPower: -59)
        #expect(after.filteredRSSI == good.filteredRSSI)
        #expect(after.zone == good.zone)
        #expect(after.readingDistance == nil)
        #expect(!ProximityEstimator.isPlausible(rssi: rssi))
    }

    /// Inside 1 m the model uses its near-field slope; beyond, the usual one; both meet at the
    /// measured power, and distance and RSSI invert each other.
    @Test func pathLossModelHasTwoSlopesThatMeetAtOneMetre() {
        let model = PathLossModel(measuredPower: -59, exponent: 2, nearFieldExponent: 1)
        #expect(model.distance(rssi: -59) == 1)
        #expect(abs(model.distance(rssi: -56) - pow(10, -0.3)) < 1e-12)  // +3 dB: 0.5 m at n = 1
        #expect(abs(model.distance(rssi: -65) - pow(10, 0.3)) < 1e-12)   // −6 dB: 2 m at n = 2
        for distance in [0.2, 0.5, 1, 3, 12] {
            #expect(abs(model.distance(rssi: model.rssi(at: distance)) - distance) < 1e-9)
        }
    }
}
