import Beacon
import Benchmarks
import Captures
import Foundation
import Scanning
import Testing
import TestSupport

/// `CaptureScanner` hands out batches: together they are exactly the reports the reader and
/// decoder give, in order, and no batch is empty or larger than `ScanBatch.limit`.
struct CaptureBatchTests {
    func batches(_ path: String) async throws -> (batches: [[Advertisement]], counts: ScanCounts) {
        let scanner = CaptureScanner(path: path)
        var batches: [[Advertisement]] = []
        for try await batch in scanner.advertisementBatches() { batches.append(batch) }
        return (batches, await scanner.counts())
    }

    @Test(arguments: ["govee-inout.pcap", "govee-h5100.btsnoop", "wimpi5-h5105.pcapng"])
    func batchesOfARealCaptureAreItsReportsInOrder(_ name: String) async throws {
        let (batches, counts) = try await batches(Paths.fixture("captures/\(name)").path)
        let direct = replay(try fixtureBytes(name))
        #expect(batches.flatMap { $0 } == direct.advertisements)
        #expect(batches.allSatisfy { !$0.isEmpty && $0.count <= ScanBatch.limit })
        #expect(counts == direct.counts)
    }

    @Test func aLongCaptureComesInFullBatches() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bikebeacon-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("long.btsnoop").path
        let built = try DecodeBench.buildCapture(from: Paths.fixture("captures/govee-h5100.btsnoop").path, reports: 2_000, to: path)

        let (batches, counts) = try await batches(path)
        let direct = replay([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        #expect(batches.flatMap { $0 } == direct.advertisements)
        #expect(counts.iBeacons == built.iBeacons)
        // Full batches until the last: one await per ScanBatch.limit reports, not per report.
        #expect(batches.dropLast().allSatisfy { $0.count == ScanBatch.limit })
        #expect((1...ScanBatch.limit).contains(batches.last?.count ?? 0))
        #expect(batches.count == (built.iBeacons + ScanBatch.limit - 1) / ScanBatch.limit)
    }

    @Test func damageEndsTheStreamAfterEveryReportBeforeIt() async throws {
        let bytes = try fixtureBytes("govee-h5100.btsnoop")
        let whole = replay(bytes)
        // Cut in the middle of the file: many reports come before the damage, in one batch.
        var reader = try CaptureReader(MemoryBytes(bytes))
        var offsets: [Int] = []
        while let packet = try reader.next() { offsets.append(packet.offset) }
        let cut = offsets[offsets.count / 2] + 20
        let damaged = replay(Array(bytes[..<cut]))
        let expectedError = try #require(damaged.error)
        try #require(damaged.advertisements.count > 1)

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bikebeacon-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("cut.btsnoop")
        try Data(bytes[..<cut]).write(to: path)

        var streamed: [Advertisement] = []
        var thrown: CaptureError?
        do {
            for try await batch in CaptureScanner(path: path.path).advertisementBatches() { streamed += batch }
        } catch let error as CaptureError {
            thrown = error
        }
        #expect(thrown == expectedError)
        #expect(streamed == damaged.advertisements)
        #expect(streamed == Array(whole.advertisements.prefix(streamed.count)))
    }
}
