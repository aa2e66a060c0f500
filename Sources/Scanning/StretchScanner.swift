import Beacon

/// One stretch of another scanner's reports: those from `offset` to `offset + duration` seconds
/// after its first report. The demo's bus hears a parked bike only while it drives past, so it
/// replays a stretch of the capture as long as its recorded track.
public struct StretchScanner: Scanner {
    public let base: any Scanner
    public let offset: Double
    public let duration: Double

    public init(_ base: any Scanner, offset: Double, duration: Double) {
        self.base = base
        self.offset = offset
        self.duration = duration
    }

    public func advertisementBatches() -> AsyncThrowingStream<[Advertisement], any Error> {
        let (offset, duration) = (offset, duration)
        let batches = base.advertisementBatches()
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    var first: Double?
                    for try await batch in batches {
                        let start = (first ?? batch.first?.time ?? 0) + offset
                        if first == nil { first = batch.first?.time }
                        let stretch = batch.filter { $0.time >= start && $0.time <= start + duration }
                        if !stretch.isEmpty { continuation.yield(stretch) }
                        if let last = batch.last, last.time > start + duration { break }
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    public func counts() async -> ScanCounts { await base.counts() }

    public func deafSeconds() -> Double { base.deafSeconds() }
}
