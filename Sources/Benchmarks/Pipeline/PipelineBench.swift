import Beacon
import Proximity
import Regions
import Registry
import Tracking

/// decode → match → estimate → monitor over a synthetic street of beacons, against decoding
/// alone as the baseline measured in the same run.
public enum PipelineBench {
    public struct Throughput: Sendable {
        public var beacons: Int
        public var advertisements: Int
        public var seconds: Double
        public var decodeOnlySeconds: Double
        public var peakTracked: Int
        public var peakResidentBytes: Int
        public var events: Int
    }

    public struct MemorySample: Sendable {
        public var simulatedMinutes: Double
        public var distinctBeaconsSoFar: Int
        public var tracked: Int
        public var residentBytes: Int
    }

    /// A street: `active` beacons in range at once, each advertising at 1 Hz with 30 % loss;
    /// every simulated second `churn` of them leave and as many new ones arrive.
    struct Street {
        let active: Int
        let churnPerSecond: Int
        var generation = 0
        var rng = SplitMix64(seed: 11)
        let uuid = BeaconID("F7826DA6-4FA2-4E98-8024-BC5B71E0893E:0:0")?.uuid
        /// Frames encoded up front when the street does not change, so timings measure the pipeline, not the encoder.
        var frames: [[UInt8]] = []

        init(active: Int, churnPerSecond: Int) {
            self.active = active
            self.churnPerSecond = churnPerSecond
            if churnPerSecond == 0 {
                frames = (0..<active).map { IBeacon.advertisingData(for: beacon(slot: $0, second: 0), measuredPower: -59) }
            }
        }

        /// The beacon in slot `i` at the current turnover.
        func beacon(slot i: Int, second: Int) -> BeaconID {
            let turnover = churnPerSecond == 0 ? 0 : (second * churnPerSecond + (active - i - 1)) / active
            let serial = turnover * active + i
            return BeaconID(uuid: uuid ?? .init(), major: UInt16(truncatingIfNeeded: serial >> 16), minor: UInt16(truncatingIfNeeded: serial))
        }

        /// Calls `body` with each advertisement of simulated second `second`, as raw advertising data.
        mutating func second(_ second: Int, _ body: (_ data: [UInt8], _ rssi: Int, _ time: Double) -> Void) {
            for i in 0..<active {
                let r = rng.next()
                guard r % 10 >= 3 else { continue }
                let data = frames.isEmpty ? IBeacon.advertisingData(for: beacon(slot: i, second: second), measuredPower: -59) : frames[i]
                let rssi = -50 - Int((r >> 8) % 40)
                body(data, rssi, 1_700_000_000 + Double(second) + Double(i) / Double(active))
            }
        }
    }

    public static func throughput(beacons: Int, advertisements: Int) -> Throughput {
        let seconds = max(1, advertisements / (beacons * 7 / 10))
        // Baseline: the same street, decoded and nothing more.
        var street = Street(active: beacons, churnPerSecond: 0)
        var decoded = 0
        let baseline = Stopwatch()
        for s in 0..<seconds {
            street.second(s) { data, _, _ in
                if (try? IBeacon.decode(advertisingData: data)) != nil { decoded += 1 }
            }
        }
        let decodeOnly = baseline.seconds

        let missing = (0..<beacons).filter { $0 % 100 == 0 }.map {
            MissingBike(beacon: Street(active: beacons, churnPerSecond: 0).beacon(slot: $0, second: 0),
                        description: BikeDescription(make: "Trek", model: "FX 3", colour: "black"))
        }
        var tracker = BeaconTracker(registry: MissingRegistry(version: 1, bikes: missing), configuration: TrackerConfiguration(trackAll: true))
        street = Street(active: beacons, churnPerSecond: 0)
        var count = 0, events = 0, peakTracked = 0
        let clock = Stopwatch()
        for s in 0..<seconds {
            street.second(s) { data, rssi, time in
                guard let frame = try? IBeacon.decode(advertisingData: data) else { return }
                count += 1
                events += tracker.observe(Advertisement(beacon: frame.beacon, rssi: rssi, measuredPower: frame.measuredPower, address: nil, time: time)).count
            }
            events += tracker.tick(at: 1_700_000_000 + Double(s + 1)).count
            peakTracked = max(peakTracked, tracker.trackedBeaconCount)
        }
        precondition(decoded == count, "the baseline must see the same advertisements")
        return Throughput(beacons: beacons, advertisements: count, seconds: clock.seconds, decodeOnlySeconds: decodeOnly,
                          peakTracked: peakTracked, peakResidentBytes: ProcessMemory.peakResidentBytes ?? 0, events: events)
    }

    /// Memory over a long run with turnover: `active` beacons at once, the street renewing
    /// itself every `active / churn` seconds. Flat RSS and tracked count show the forgetting works.
    public static func memoryOverTime(active: Int, churnPerSecond: Int, minutes: Int, sampleEveryMinutes: Int) -> [MemorySample] {
        var tracker = BeaconTracker(configuration: TrackerConfiguration(trackAll: true))
        var street = Street(active: active, churnPerSecond: churnPerSecond)
        var samples: [MemorySample] = []
        for s in 0..<(minutes * 60) {
            street.second(s) { data, rssi, time in
                guard let frame = try? IBeacon.decode(advertisingData: data) else { return }
                _ = tracker.observe(Advertisement(beacon: frame.beacon, rssi: rssi, measuredPower: frame.measuredPower, address: nil, time: time))
            }
            _ = tracker.tick(at: 1_700_000_000 + Double(s + 1))
            if (s + 1) % (sampleEveryMinutes * 60) == 0 {
                samples.append(MemorySample(simulatedMinutes: Double(s + 1) / 60,
                                            distinctBeaconsSoFar: active + (s + 1) * churnPerSecond,
                                            tracked: tracker.trackedBeaconCount,
                                            residentBytes: ProcessMemory.residentBytes ?? 0))
            }
        }
        return samples
    }
}
