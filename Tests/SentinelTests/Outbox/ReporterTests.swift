import BikebeaconAPI
import Durable
import Foundation
import Testing
@testable import Sentinel

@Suite struct ReporterTests {

    @Test func deliversEverythingInBatchesAndEmptiesTheOutbox() async throws {
        try await TestValues.withOutbox { outbox in
            let sightings = (0..<25).map { TestValues.sighting(.present, at: TestValues.t0 + Double($0)) }
            for s in sightings { try await outbox.append(s) }
            let server = FakeSightingServer()
            let reporter = Reporter(outbox: outbox, transport: server, configuration: .init(batchSize: 10))
            #expect(await reporter.drain() == .drained(sent: 25))
            #expect(await server.batches == 3)
            #expect(await server.stored.count == 25)
            #expect(try await outbox.count() == 0)
        }
    }

    @Test func keepsEverythingWhileTheServerIsDownThenDeliversEachOnce() async throws {
        try await TestValues.withOutbox { outbox in
            let server = FakeSightingServer()
            await server.setDown(true)
            let reporter = Reporter(outbox: outbox, transport: server, configuration: .init(batchSize: 4))
            var sent: [Sighting] = []
            for i in 0..<10 {
                let s = TestValues.sighting(i == 0 ? .arrived : .present, at: TestValues.t0 + Double(i))
                try await outbox.append(s)
                sent.append(s)
                guard case .failed = await reporter.drain() else { Issue.record("a down server must fail the pass"); return }
            }
            #expect(await reporter.consecutiveFailures == 10)
            #expect(try await outbox.count() == 10)
            await server.setDown(false)
            #expect(await reporter.drain() == .drained(sent: 10))
            #expect(await reporter.consecutiveFailures == 0)
            #expect(Set(await server.stored.keys) == Set(sent.map(\.id)))
            #expect(await reporter.delivered == 10)
        }
    }

    @Test func aLostAnswerResendsAndTheServerCountsADuplicate() async throws {
        /// Stores the batch, then loses the answer once.
        actor LosesFirstAnswer: SightingTransport {
            let server = FakeSightingServer()
            var lost = false
            func send(_ sightings: [Sighting]) async throws -> SightingResult {
                let receipt = try await server.send(sightings)
                if !lost {
                    lost = true
                    throw URLError(.networkConnectionLost)
                }
                return receipt
            }
        }
        try await TestValues.withOutbox { outbox in
            let s = TestValues.sighting(.arrived)
            try await outbox.append(s)
            let transport = LosesFirstAnswer()
            let reporter = Reporter(outbox: outbox, transport: transport)
            guard case .failed = await reporter.drain() else { Issue.record("the lost answer must fail the pass"); return }
            #expect(try await outbox.count() == 1)
            #expect(await reporter.drain() == .drained(sent: 1))
            #expect(await transport.server.stored.count == 1)
            #expect(try await outbox.count() == 0)
        }
    }

    /// Not sent again, and not deleted: kept with the server's reason, for `bikebeacon status`.
    @Test func refusedSightingsAreNotSentAgain() async throws {
        try await TestValues.withOutbox { outbox in
            let server = FakeSightingServer()
            await server.refuse(TestValues.blueCharm)
            try await outbox.append(TestValues.sighting(.arrived, beacon: TestValues.blueCharm))
            try await outbox.append(TestValues.sighting(.arrived, beacon: TestValues.intel))
            let reporter = Reporter(outbox: outbox, transport: server)
            #expect(await reporter.drain() == .drained(sent: 2))
            #expect(await reporter.rejected == 1)
            #expect(try await outbox.count() == 0)
            let kept = try await outbox.refused()
            #expect(kept.count == 1 && kept.newestReason == "beacon is not on the missing list")
            #expect(await server.batches == 1)
        }
    }

    @Test func backsOffExponentiallyWithJitterWhileDown() async throws {
        try await TestValues.withOutbox { outbox in
            try await outbox.append(TestValues.sighting(.arrived))
            let server = FakeSightingServer()
            await server.setDown(true)
            let reporter = Reporter(outbox: outbox, transport: server,
                                    configuration: .init(backoff: Backoff(initial: 1, maximum: 60), pollInterval: 1))
            let sleeps = SleepRecorder()
            await sleeps.stopAfter(9)
            // The server comes back during the 8th wait.
            await sleeps.whenSleeping { count in if count == 8 { await server.setDown(false) } }
            await reporter.run(sleep: { try await sleeps.sleep($0) }, random: { 0.5 })
            #expect(await sleeps.waits == [0.75, 1.5, 3, 6, 12, 24, 45, 45, 1])
            #expect(await server.stored.count == 1)
            #expect(try await outbox.count() == 0)
        }
    }
}

@Suite struct BackoffTests {
    @Test func doublesUpToTheMaximumAndStaysInTheUpperHalf() {
        let backoff = Backoff(initial: 2, maximum: 100)
        #expect(backoff.delay(afterFailures: 1, random: 0) == 1)
        #expect(backoff.delay(afterFailures: 1, random: 0.999_999).map { $0 < 2 } == true)
        #expect(backoff.delay(afterFailures: 3, random: 0) == 4)
        #expect(backoff.delay(afterFailures: 30, random: 0) == 50)
        #expect(backoff.delay(afterFailures: 10_000, random: 0.999).map { $0 <= 100 } == true)
        #expect(Backoff(maxAttempts: 3).delay(afterFailures: 3, random: 0) == nil, "a capped backoff gives up")
    }

    @Test func jitterSpreadsAroundTheBase() {
        #expect(Jitter.spread(300, by: 0.1, random: 0) == 270)
        #expect(Jitter.spread(300, by: 0.1, random: 0.5) == 300)
        #expect(Jitter.spread(300, by: 0.1, random: 0.999_999) < 330)
    }
}
