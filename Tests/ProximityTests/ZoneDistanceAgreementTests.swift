import Beacon
import Benchmarks
import Captures
import Foundation
import Proximity
import Scanning
import Testing
import TestSupport
import Tracking

/// The zone and the distance an owner sees come from one model: the zone bands are the distance
/// bands mapped through the same path-loss model, and the distance is the level's estimate,
/// held at the zone's edge while the zone holds against it. So the distance shown always lies
/// in the zone shown, and within its own one-sigma range, on real captures and on every real
/// stream. (The first version took the zone from a Bayes filter
/// and the distance from the curve: the demo showed `immediate` at 0.8 m.)
struct ZoneDistanceAgreementTests {
    /// The distances a zone stands for, metres.
    static func band(_ zone: Zone) -> ClosedRange<Double> {
        switch zone {
        case .immediate: 0...Zone.immediateLimit
        case .near: Zone.immediateLimit...Zone.nearLimit
        case .far, .unknown: Zone.nearLimit...Double.infinity
        }
    }

    /// Nil when the estimate agrees with itself; what is wrong otherwise.
    static func disagreement(_ estimate: ProximityEstimate) -> String? {
        guard estimate.zone != .unknown else { return estimate.distance == nil ? nil : "unknown with a distance" }
        guard let distance = estimate.distance, let range = estimate.distanceRange else { return "\(estimate.zone) without a distance" }
        // 1e-9 m: the edge's distance goes through the model and back.
        let slack = 1e-9
        guard range.lowerBound - slack <= distance, distance <= range.upperBound + slack else {
            return "\(distance) m outside its own range \(range)"
        }
        let zone = band(estimate.zone)
        return zone.lowerBound - slack <= distance && distance <= zone.upperBound + slack ? nil : "\(estimate.zone) at \(distance) m"
    }

    /// Every beacon of the three bundled Raspberry Pi captures (Tests/Fixtures/captures), through
    /// the sentinel's own pipeline (the owner's range view is the same path, RangeTrackerTests).
    @Test(arguments: ["govee-h5100.btsnoop", "govee-inout.pcap", "wimpi5-h5105.pcapng"])
    func onTheBundledCaptures(file: String) throws {
        var reader = try CaptureReader(FileBytes(path: Paths.fixture("captures/" + file).path))
        var decoder = AdvertisementDecoder()
        var tracker = BeaconTracker(configuration: TrackerConfiguration(trackAll: true))
        var checked = 0
        var problems: [String] = []
        while let packet = try reader.next() {
            var advertisements: [Advertisement] = []
            decoder.decode(h4: packet.h4, time: packet.time) { advertisements.append($0) }
            for advertisement in advertisements {
                _ = tracker.observe(advertisement)
                guard let estimate = tracker.estimate(of: advertisement.beacon, at: advertisement.time) else { continue }
                checked += 1
                if let problem = Self.disagreement(estimate) { problems.append("\(advertisement.beacon) at \(advertisement.time): \(problem)") }
            }
        }
        #expect(checked > 0, "the capture holds iBeacon readings")
        #expect(problems.isEmpty, "\(problems.count) of \(checked): \(problems.prefix(5))")
    }

    /// Every reading of every constant-distance stream: the excerpts in Tests/Fixtures/rssi, and
    /// the whole herald and pcng sets when ../shared/data is there.
    @Test(.cpuBound, arguments: ["fixtures/herald", "fixtures/pcng", "shared/herald", "shared/pcng"])
    func onTheDatasets(source: String) throws {
        let parts = source.split(separator: "/")
        guard let dataset = try rssiDataset(String(parts[1]), whole: parts[0] == "shared") else { return }
        var checked = 0
        var problems: [String] = []
        for receiver in dataset.receivers {
            for stream in receiver.streams {
                var estimator = ProximityEstimator()
                for (time, rssi) in zip(stream.times, stream.rssi) {
                    let estimate = estimator.update(time: time, rssi: rssi, measuredPower: receiver.measuredPower)
                    checked += 1
                    if let problem = Self.disagreement(estimate) { problems.append("\(receiver.name) \(stream.distance) m at \(time): \(problem)") }
                }
            }
        }
        #expect(checked > 1000)
        #expect(problems.isEmpty, "\(problems.count) of \(checked): \(problems.prefix(5))")
    }

    /// The bound behind it, on a sweep of levels: after any history the level lies inside the
    /// reported zone's band, or at most Φ⁻¹(switch probability) sigmas (0.52 at 0.7) outside it.
    @Test func theLevelNeverStraysMoreThanTheSwitchMarginFromItsZone() throws {
        var signal = Signal(seed: 21)
        var estimator = ProximityEstimator()
        let model = estimator.configuration.model(measuredPower: signal.measuredPower)
        let immediateAbove = model.rssi(at: Zone.immediateLimit), farBelow = model.rssi(at: Zone.nearLimit)
        var time = 0.0
        var worst = 0.0
        // A slow sweep from 0.1 m out to 10 m and back, twice, with 6 dB noise and fades.
        while time < 1200 {
            let phase = (time.truncatingRemainder(dividingBy: 600)) / 600
            let distance = 0.1 * pow(100, phase < 0.5 ? 2 * phase : 2 - 2 * phase)
            let estimate = estimator.update(time: time, rssi: signal.reading(mean: model.rssi(at: distance), sigma: 6, fadeShare: 0.05),
                                            measuredPower: signal.measuredPower)
            let level = try #require(estimate.filteredRSSI)
            let outside: Double = switch estimate.zone {
            case .immediate: max(0, immediateAbove - level)
            case .near: max(0, level - immediateAbove, farBelow - level)
            case .far: max(0, level - farBelow)
            case .unknown: 0
            }
            // One sigma of the level, read back from the distance range through the same model.
            let range = try #require(estimate.distanceRange)
            worst = max(worst, outside / (model.rssi(at: range.lowerBound) - level))
            time += signal.interval(rate: 2)
        }
        #expect(worst <= 0.5245, "the level strayed \(worst) σ out of its zone")
        #expect(worst > 0, "the sweep crossed boundaries and the hysteresis was used")
    }
}
