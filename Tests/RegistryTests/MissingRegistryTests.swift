import Beacon
import Benchmarks
import Registry
import Testing

struct MissingRegistryTests {
    let bikes = RegistryBench.syntheticBikes(count: 5_000)

    @Test func matchesEveryEntryAndNothingElse() {
        let registry = MissingRegistry(version: 3, bikes: bikes)
        #expect(registry.count == bikes.count)
        for bike in bikes { #expect(registry.match(bike.beacon) == bike.description) }
        let strangers = RegistryBench.syntheticBikes(count: 5_000, seed: 99)
        #expect(strangers.filter { registry.contains($0.beacon) }.isEmpty)
    }

    @Test func sameUUIDDifferentMinorIsAnotherBike() throws {
        let id = try #require(BeaconID("494E5445-4C4C-495F-524F-434B535F4857:20597:62207"))
        let registry = MissingRegistry(bikes: [MissingBike(beacon: id, description: .init(make: "Trek", model: "FX 3", colour: "black"))])
        var other = id
        other.minor += 1
        #expect(registry.match(id)?.make == "Trek")
        #expect(registry.match(other) == nil)
    }

    @Test func deltaRemovesAndAddsThenMatchesTheServersList() throws {
        var registry = MissingRegistry(version: 1, bikes: bikes[0..<3_000])
        let delta = MissingListDelta(since: 1, version: 2,
                                     added: Array(bikes[3_000..<5_000]),
                                     removed: bikes[0..<1_000].map(\.beacon))
        try registry.apply(delta)
        #expect(registry.version == 2)
        #expect(registry.count == 4_000)
        #expect(bikes[0..<1_000].allSatisfy { !registry.contains($0.beacon) })
        #expect(bikes[1_000..<5_000].allSatisfy { registry.match($0.beacon) == $0.description })
        #expect(Set(registry.bikes) == Set(bikes[1_000..<5_000]))
    }

    @Test func deltaFromAnotherVersionIsRefused() {
        var registry = MissingRegistry(version: 7, bikes: bikes[0..<10])
        #expect(throws: RegistryError.versionMismatch(held: 7, deltaSince: 5)) {
            try registry.apply(MissingListDelta(since: 5, version: 8, added: [], removed: bikes[0..<10].map(\.beacon)))
        }
        #expect(registry.count == 10)
        #expect(registry.version == 7)
    }

    @Test func removingEverythingLeavesNoGhosts() throws {
        var registry = MissingRegistry(version: 1, bikes: bikes)
        try registry.apply(MissingListDelta(since: 1, version: 2, added: [], removed: bikes.map(\.beacon).reversed()))
        #expect(registry.isEmpty)
        #expect(bikes.allSatisfy { !registry.contains($0.beacon) })
        try registry.apply(MissingListDelta(since: 2, version: 3, added: Array(bikes[0..<50]), removed: []))
        #expect(bikes[0..<50].allSatisfy { registry.contains($0.beacon) })
    }

    @Test func updatedDescriptionReplacesTheOldOne() throws {
        var registry = MissingRegistry(version: 1, bikes: bikes[0..<1])
        let changed = MissingBike(beacon: bikes[0].beacon, description: .init(make: "Gazelle", model: "Orange", colour: "red"))
        try registry.apply(MissingListDelta(since: 1, version: 2, added: [changed], removed: []))
        #expect(registry.count == 1)
        #expect(registry.match(bikes[0].beacon)?.colour == "red")
    }
}
