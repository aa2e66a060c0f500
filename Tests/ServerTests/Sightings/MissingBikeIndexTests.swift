import Beacon
import Foundation
import Synchronization
import Testing
@testable import Server

/// The ingest's copy of the missing bikes is read once per version of the list, and again for a newer one.
@Suite struct MissingBikeIndexTests {
    static let beacon = BeaconID(uuid: UUID(uuidString: "B5B182C7-EAB1-4988-AA99-B5C1517008D9") ?? UUID(), major: 1, minor: 2)

    final class Reads: Sendable {
        let count = Atomic<Int>(0)
        let fail = Atomic<Bool>(false)
        func read(_ name: String) async throws -> [BeaconID: SightingStore.MissingBikeRow] {
            count.add(1, ordering: .relaxed)
            try await Task.sleep(for: .milliseconds(20))
            if fail.load(ordering: .relaxed) { throw StorageError.corruptRow("test") }
            return [MissingBikeIndexTests.beacon: .init(id: "bike", ownerID: "ann", name: name)]
        }
    }

    @Test func oneReadPerVersionSharedByTheBatchesMeanwhile() async throws {
        let index = MissingBikeIndex(), reads = Reads()
        let names = try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<20 { group.addTask { try await index.bikes(version: 7) { try await reads.read("v7") }[Self.beacon]?.name } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(names == Array(repeating: "v7", count: 20))
        #expect(reads.count.load(ordering: .relaxed) == 1)
        // An older version asked for (a request that read the stamp before the change) gets the newer copy.
        #expect(try await index.bikes(version: 6) { try await reads.read("v6") }[Self.beacon]?.name == "v7")
        #expect(reads.count.load(ordering: .relaxed) == 1)
        // A newer version is read again.
        #expect(try await index.bikes(version: 8) { try await reads.read("v8") }[Self.beacon]?.name == "v8")
        #expect(reads.count.load(ordering: .relaxed) == 2)
    }

    @Test func aFailedReadIsNotKept() async throws {
        let index = MissingBikeIndex(), reads = Reads()
        reads.fail.store(true, ordering: .relaxed)
        await #expect(throws: StorageError.self) { try await index.bikes(version: 3) { try await reads.read("v3") } }
        reads.fail.store(false, ordering: .relaxed)
        #expect(try await index.bikes(version: 3) { try await reads.read("v3") }[Self.beacon]?.name == "v3")
        #expect(reads.count.load(ordering: .relaxed) == 2)
    }
}
