import Beacon
import Foundation
import Scanning
import Testing
@testable import Sentinel

/// The live input stream: the scanner's batches and the ticks in one bounded stream. A core that falls behind
/// loses the oldest batches, with one warning, never the end; a scanner's failure ends the stream with its error.
@Suite struct LiveInputsTests {
    /// A scanner that has `batches` batches of one advertisement each ready at once, then ends (or fails).
    struct Burst: Scanning.Scanner {
        let batches: Int
        var failure: (any Error & Sendable)?

        func advertisementBatches() -> AsyncThrowingStream<[Advertisement], any Error> {
            AsyncThrowingStream { continuation in
                for i in 0..<batches {
                    continuation.yield([Advertisement(beacon: TestValues.intel, rssi: -60, measuredPower: nil, address: nil,
                                                      time: TestValues.t0 + Double(i))])
                }
                continuation.finish(throwing: failure)
            }
        }

        func counts() async -> ScanCounts { ScanCounts() }
    }

    struct RadioGone: Error {}

    /// Everything the stream gives, read only after `wait` (the core busy elsewhere).
    static func read(_ scanner: Burst, tick: Duration = .seconds(60), wait: Duration, log: LogLines) async throws -> [LiveInputs.Input] {
        try await withThrowingTaskGroup(of: Void.self) { group in
            let stream = LiveInputs.stream(from: scanner, tick: tick, group: &group, logger: log.logger())
            try await Task.sleep(for: wait)
            var inputs: [LiveInputs.Input] = []
            for await input in stream {
                inputs.append(input)
                if case .end = input { break }
            }
            group.cancelAll()
            return inputs
        }
    }

    static func times(_ inputs: [LiveInputs.Input]) -> [Double] {
        inputs.flatMap { input -> [Double] in
            guard case let .advertisements(batch) = input else { return [] }
            return batch.map(\.time)
        }
    }

    @Test func aCoreThatFallsBehindLosesTheOldestBatchesWithOneWarning() async throws {
        let log = LogLines()
        let inputs = try await Self.read(Burst(batches: LiveInputs.buffered + 50), wait: .milliseconds(300), log: log)
        let times = Self.times(inputs)
        guard case .end(nil) = inputs.last else {
            Issue.record("the stream did not end with the scanner")
            return
        }
        #expect(times.count == LiveInputs.buffered - 1, "the newest batches and the end fill the buffer")
        #expect(times.last == TestValues.t0 + Double(LiveInputs.buffered + 49))
        #expect(times == times.sorted(), "in the order heard")
        #expect(log.count("warning the sentinel cannot keep up with the radio") == 1, "\(log.all)")
    }

    @Test func aCoreThatKeepsUpGetsEveryBatchAndNoWarning() async throws {
        let log = LogLines()
        let inputs = try await Self.read(Burst(batches: 10), wait: .zero, log: log)
        #expect(Self.times(inputs) == (0..<10).map { TestValues.t0 + Double($0) })
        #expect(log.all.isEmpty)
    }

    @Test func aFailingScannerEndsTheStreamWithItsError() async throws {
        let inputs = try await Self.read(Burst(batches: 1, failure: RadioGone()), wait: .zero, log: LogLines())
        guard case let .end(error?) = inputs.last else {
            Issue.record("no error at the end: \(inputs)")
            return
        }
        #expect(error is RadioGone)
    }

    @Test func ticksComeBetweenTheBatches() async throws {
        let inputs = await withThrowingTaskGroup(of: Void.self) { group in
            let stream = LiveInputs.stream(from: Burst(batches: 0), tick: .milliseconds(20), group: &group, logger: LogLines().logger())
            var ticks = 0
            for await input in stream {
                if case .tick = input { ticks += 1 }
                if ticks == 3 { break }
            }
            group.cancelAll()
            return ticks
        }
        #expect(inputs == 3)
    }
}
