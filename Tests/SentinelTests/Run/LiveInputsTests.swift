import Beacon
import Foundation
import Scanning
import Synchronization
import Testing
@testable import Sentinel

/// The live input stream: the scanner's batches and the ticks in one bounded stream. A core that falls behind
/// loses the oldest batches, with one warning, never the end; a scanner's failure ends the stream with its error.
@Suite struct LiveInputsTests {
    /// A scanner with `batches` batches of one advertisement each, as fast as they are taken, then the end (or `failure`).
    final class Burst: Scanning.Scanner, Sendable {
        let batches: Int
        let failure: (any Error & Sendable)?
        /// Batches taken so far; past `batches` once the end was taken too.
        let taken = Mutex(0)

        init(batches: Int, failure: (any Error & Sendable)? = nil) {
            self.batches = batches
            self.failure = failure
        }

        func advertisementBatches() -> AsyncThrowingStream<[Advertisement], any Error> {
            AsyncThrowingStream { [self] in
                let i = taken.withLock { count in
                    defer { count += 1 }
                    return count
                }
                if i < batches {
                    return [Advertisement(beacon: TestValues.intel, rssi: -60, measuredPower: nil, address: nil, time: TestValues.t0 + Double(i))]
                }
                if i == batches, let failure { throw failure }
                return nil
            }
        }

        func counts() async -> ScanCounts { ScanCounts() }
    }

    struct RadioGone: Error {}

    /// Everything the stream gives; with `wait`, read only once the scanner has given all it has.
    static func read(_ scanner: Burst, tick: Duration = .seconds(60), wait: Bool, log: LogLines) async throws -> [LiveInputs.Input] {
        try await withThrowingTaskGroup(of: Void.self) { group in
            let stream = LiveInputs.stream(from: scanner, tick: tick, group: &group, logger: log.logger())
            if wait {
                // The core busy elsewhere until the scanner has given everything.
                while scanner.taken.withLock({ $0 }) <= scanner.batches { try await Task.sleep(for: .milliseconds(10)) }
                try await Task.sleep(for: .milliseconds(50))
            }
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
        let total = LiveInputs.buffered + 50
        let inputs = try await Self.read(Burst(batches: total), wait: true, log: log)
        let times = Self.times(inputs)
        guard case .end(nil) = inputs.last else {
            Issue.record("the stream did not end with the scanner")
            return
        }
        #expect(times.count >= LiveInputs.buffered - 1 && times.count <= LiveInputs.buffered, "the buffer's worth: the newest batches (and the end)")
        #expect(times == (total - times.count..<total).map { TestValues.t0 + Double($0) }, "the newest ones, in the order heard")
        #expect(log.count("warning the sentinel cannot keep up with the radio") == 1, "\(log.all)")
    }

    @Test func aCoreThatKeepsUpGetsEveryBatchAndNoWarning() async throws {
        let log = LogLines()
        let inputs = try await Self.read(Burst(batches: 10), wait: false, log: log)
        #expect(Self.times(inputs) == (0..<10).map { TestValues.t0 + Double($0) })
        #expect(log.all.isEmpty)
    }

    @Test func aFailingScannerEndsTheStreamWithItsError() async throws {
        let inputs = try await Self.read(Burst(batches: 1, failure: RadioGone()), wait: false, log: LogLines())
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
