import Beacon
import Foundation
import Scanning

/// A live radio made of a real capture: its advertisements at `speed` times their recorded pace,
/// stamped now, from the start again when it ends, as the tags in it would be heard if they were here.
final class PacedCapture: Scanning.Scanner, Sendable {
    let advertisements: [Advertisement]
    let speed: Double

    init(_ advertisements: [Advertisement], speed: Double) {
        self.advertisements = advertisements
        self.speed = speed
    }

    func advertisementBatches() -> AsyncThrowingStream<[Advertisement], any Error> {
        let advertisements = advertisements, speed = speed
        return AsyncThrowingStream { continuation in
            let task = Task {
                while !Task.isCancelled, let first = advertisements.first?.time {
                    let start = ContinuousClock.now
                    for var advertisement in advertisements {
                        let due = start + .milliseconds(Int((advertisement.time - first) / speed * 1000))
                        if due > ContinuousClock.now { try? await Task.sleep(until: due) }
                        if Task.isCancelled { break }
                        advertisement.time = Date().timeIntervalSince1970
                        continuation.yield([advertisement])
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    func counts() async -> ScanCounts { ScanCounts() }
}
