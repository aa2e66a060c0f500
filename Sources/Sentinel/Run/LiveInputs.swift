import Beacon
import Logging
import Scanning

/// Live: advertisement batches and one-second ticks in one stream. If the core cannot keep up, the oldest
/// batches are dropped rather than memory growing (`buffered` batches of at most `ScanBatch.limit`; live
/// batches are one bus dispatch or socket burst each).
enum LiveInputs {
    enum Input: Sendable {
        /// One batch from the scanner.
        case advertisements([Advertisement])
        /// A second passed.
        case tick
        /// The scanner stopped, with its error if it failed.
        case end((any Error)?)
    }

    static let buffered = 256

    /// The stream, fed by two tasks in `group`: the scanner's batches and the ticks, every `tick`.
    static func stream(from scanner: any Scanning.Scanner, tick: Duration = .seconds(1),
                       group: inout ThrowingTaskGroup<Void, any Error>, logger: Logger) -> AsyncStream<Input> {
        let (inputs, feed) = AsyncStream<Input>.makeStream(bufferingPolicy: .bufferingNewest(buffered))
        group.addTask {
            do {
                var warned = false
                for try await batch in scanner.advertisementBatches() {
                    if case .dropped = feed.yield(.advertisements(batch)), !warned {
                        warned = true
                        logger.warning("the sentinel cannot keep up with the radio; the oldest advertisements are dropped")
                    }
                }
                feed.yield(.end(nil))
            } catch {
                feed.yield(.end(error))
            }
        }
        group.addTask {
            while !Task.isCancelled {
                try await Task.sleep(for: tick)
                feed.yield(.tick)
            }
        }
        return inputs
    }
}
