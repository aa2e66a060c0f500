import BikebeaconAPI
import Foundation
import Testing
@testable import Sentinel

/// The status publisher: `status.json` and the metrics file say what the counters, the outbox and the missing
/// list hold now; a status directory it cannot write to costs a warning, never the run.
@Suite struct StatusPublisherTests {
    /// A server that never answers: the list stays empty.
    struct Unreachable: MissingListSource {
        struct Down: Error {}
        func fetch(since: Int64?, etag: String?) async throws -> MissingListAnswer { throw Down() }
    }

    /// A transport the reporter never gets to use here.
    struct Unused: SightingTransport {
        func send(_ sightings: [Sighting]) async throws -> SightingResult { throw Unreachable.Down() }
    }

    static func publisher(_ outbox: Outbox, stats: Stats, directory: String, log: LogLines) throws -> StatusPublisher {
        let cache = MissingListCache(path: try TestValues.temporaryDirectory().appendingPathComponent("missing-list.json").path)
        return StatusPublisher(directory: directory, stats: stats, outbox: outbox,
                               reporter: Reporter(outbox: outbox, transport: Unused()),
                               sync: MissingListSync(source: Unreachable(), cache: cache), roaming: nil, logger: log.logger())
    }

    @Test func theStatusFileSaysWhatTheCountersAndTheOutboxHoldNow() async throws {
        try await TestValues.withOutbox { outbox in
            let directory = try TestValues.temporaryDirectory().path
            let stats = Stats(startedAt: TestValues.t0)
            await stats.advertisements(7, matched: 3)
            await stats.created(2)
            try await outbox.append(TestValues.sighting(.arrived))
            try await outbox.append(TestValues.sighting(.present, at: TestValues.t0 + 60))
            let log = LogLines()
            try await Self.publisher(outbox, stats: stats, directory: directory, log: log).write()

            let status = try JSONDecoder().decode(SentinelStatus.self, from: Data(contentsOf: URL(fileURLWithPath: directory + "/" + SentinelStatus.fileName)))
            #expect(status.advertisements == 7)
            #expect(status.matches == 3)
            #expect(status.sightingsCreated == 2)
            #expect(status.outboxDepth == 2)
            #expect(status.pid == getpid())
            let metrics = try String(contentsOfFile: directory + "/" + SentinelStatus.metricsFileName, encoding: .utf8)
            #expect(metrics.contains("\nbikebeacon_advertisements_total 7\n"), "\(metrics)")
            #expect(log.all.isEmpty)
        }
    }

    @Test func aStatusDirectoryThatCannotBeWrittenOnlyWarns() async throws {
        try await TestValues.withOutbox { outbox in
            let missing = try TestValues.temporaryDirectory().appendingPathComponent("not-made").path
            let log = LogLines()
            try await Self.publisher(outbox, stats: Stats(startedAt: TestValues.t0), directory: missing, log: log).write()
            #expect(log.count("warning cannot write the status file") == 1, "\(log.all)")
        }
    }
}
