#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Beacon
import Registry

/// Build time, lookup latency and memory of the missing registry at community scale,
/// against Swift's Dictionary as the baseline measured in the same run.
public enum RegistryBench {
    public struct Result: Sendable {
        public var entries: Int
        public var buildSeconds: Double
        public var hitNanoseconds: Double
        public var missNanoseconds: Double
        public var matchNanoseconds: Double
        public var memoryBytes: Int
        public var baselineBuildSeconds: Double
        public var baselineHitNanoseconds: Double
        public var baselineMemoryBytes: Int
        /// One random read into an array as large as the registry's table: the floor any lookup pays.
        public var memoryFloorNanoseconds: Double
    }

    /// Realistic descriptions: a community's bikes share makes, models and colours.
    static let makes = ["Trek", "Giant", "Specialized", "Cannondale", "Brompton", "Gazelle", "Cube", "Scott", "Riese & Müller", "Bianchi"]
    static let models = ["FX 3", "Escape 2", "Sirrus", "Quick 4", "C Line", "Ultimate", "Kathmandu", "Sub Cross", "Load 75", "Via Nirone"]
    static let colours = ["black", "white", "red", "blue", "green", "grey", "silver", "yellow"]

    public static func syntheticBikes(count: Int, seed: UInt64 = 42) -> [MissingBike] {
        var generator = SplitMix64(seed: seed)
        return (0..<count).map { i in
            MissingBike(
                beacon: syntheticBeacon(&generator),
                description: BikeDescription(
                    make: makes[i % makes.count],
                    model: models[(i / makes.count) % models.count],
                    colour: colours[(i / 7) % colours.count]
                )
            )
        }
    }

    static func syntheticBeacon(_ generator: inout SplitMix64) -> BeaconID {
        let a = generator.next(), b = generator.next(), c = generator.next()
        let uuid = UUID(uuid: (
            UInt8(truncatingIfNeeded: a), UInt8(truncatingIfNeeded: a >> 8), UInt8(truncatingIfNeeded: a >> 16), UInt8(truncatingIfNeeded: a >> 24),
            UInt8(truncatingIfNeeded: a >> 32), UInt8(truncatingIfNeeded: a >> 40), UInt8(truncatingIfNeeded: a >> 48), UInt8(truncatingIfNeeded: a >> 56),
            UInt8(truncatingIfNeeded: b), UInt8(truncatingIfNeeded: b >> 8), UInt8(truncatingIfNeeded: b >> 16), UInt8(truncatingIfNeeded: b >> 24),
            UInt8(truncatingIfNeeded: b >> 32), UInt8(truncatingIfNeeded: b >> 40), UInt8(truncatingIfNeeded: b >> 48), UInt8(truncatingIfNeeded: b >> 56)))
        return BeaconID(uuid: uuid, major: UInt16(truncatingIfNeeded: c), minor: UInt16(truncatingIfNeeded: c >> 16))
    }

    public static func run(entries: Int, lookups: Int = 2_000_000) -> Result {
        let bikes = syntheticBikes(count: entries)
        var generator = SplitMix64(seed: 7)
        let hits = (0..<lookups).map { _ in bikes[Int(generator.next() % UInt64(entries))].beacon }
        let misses = (0..<lookups).map { _ in syntheticBeacon(&generator) }

        let before = ProcessMemory.residentBytes ?? 0
        let buildClock = Stopwatch()
        let registry = MissingRegistry(version: 1, bikes: bikes)
        let buildSeconds = buildClock.seconds
        let memory = (ProcessMemory.residentBytes ?? 0) - before

        // `contains` is what every advertisement pays; `match` (with the description) only runs for events.
        let hitNanoseconds = time(lookups) { var found = 0; for id in hits where registry.contains(id) { found += 1 }; return found }
        let missNanoseconds = time(lookups) { var found = 0; for id in misses where registry.contains(id) { found += 1 }; return found }
        let matchNanoseconds = time(lookups) { var found = 0; for id in hits where registry.match(id) != nil { found += 1 }; return found }

        let baseBefore = ProcessMemory.residentBytes ?? 0
        let baseClock = Stopwatch()
        var dictionary: [BeaconID: BikeDescription] = [:]
        dictionary.reserveCapacity(entries)
        for bike in bikes { dictionary[bike.beacon] = bike.description }
        let baselineBuild = baseClock.seconds
        let baselineMemory = (ProcessMemory.residentBytes ?? 0) - baseBefore
        let baselineHit = time(lookups) { var found = 0; for id in hits where dictionary[id] != nil { found += 1 }; return found }

        let floor = memoryFloor(bytes: memory, reads: lookups, generator: &generator)

        return Result(entries: entries, buildSeconds: buildSeconds, hitNanoseconds: hitNanoseconds,
                      missNanoseconds: missNanoseconds, matchNanoseconds: matchNanoseconds, memoryBytes: memory,
                      baselineBuildSeconds: baselineBuild, baselineHitNanoseconds: baselineHit,
                      baselineMemoryBytes: baselineMemory, memoryFloorNanoseconds: floor)
    }

    /// Nanoseconds per independent random 8-byte read in a buffer of `bytes`, backed by huge pages like the table.
    static func memoryFloor(bytes: Int, reads: Int, generator: inout SplitMix64) -> Double {
        let words = max(1, bytes / 8)
        let buffer = (0..<words).map { _ in generator.next() }
        let indices = (0..<reads).map { _ in Int(generator.next() % UInt64(words)) }
        return time(reads) {
            var sum: UInt64 = 0
            buffer.withUnsafeBufferPointer { b in for i in indices { sum &+= b[i] } }
            return Int(truncatingIfNeeded: sum & 0xFF)
        }
    }

    /// Nanoseconds per operation; the returned value goes to `blackHole` so the loop cannot be dropped.
    static func time(_ operations: Int, _ body: () -> Int) -> Double {
        let clock = Stopwatch()
        blackHole(body())
        return clock.seconds * 1e9 / Double(operations)
    }
}

/// Deterministic PRNG for reproducible synthetic data.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
