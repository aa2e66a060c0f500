import Beacon

/// Totals a scanner keeps, for the end-of-run summary and for metrics.
public struct ScanCounts: Sendable, Equatable {
    /// Advertising reports read, of any kind.
    public var reports = 0
    /// Reports that were iBeacons and came out as `Advertisement`s.
    public var iBeacons = 0
    /// Reports that were something else (other manufacturers, other Apple frames, no data).
    public var otherAdvertisements = 0
    /// Malformed reports or records that were skipped with a log line.
    public var errors = 0
    /// Times scanning was started again: by the watchdog after a silence, or after bluetoothd
    /// or the adapter came back. A steady climb means a flaky radio or driver.
    public var restarts = 0
    /// Seconds the scanner meant to listen but could not (bluetoothd gone, the adapter off or
    /// missing, discovery refused or not running): silence then says nothing about the tags.
    public var deafSeconds = 0.0
    /// What the scanner waits for while it cannot listen ("bluetoothd (…)"); nil while it listens.
    public var waitingFor: String?
    /// What the scanner knows of the radio, for the sentinel's heartbeat; nil where it cannot tell
    /// (a capture has no adapter; bluetoothd away hides whether one is there).
    public var adapterPresent: Bool?
    public var adapterPowered: Bool?
    /// Whether discovery is running now; nil when the source cannot tell (a capture, a raw socket, which scan while they run).
    public var scanning: Bool?

    public init() {}
}

/// A source of iBeacon advertisements: BlueZ over D-Bus, a raw HCI socket, or a capture file.
///
/// Advertisements come in batches, one per read (a chunk of a capture, a socket read, a D-Bus
/// dispatch): an async hop per report cost more than decoding it.
public protocol Scanner: Sendable {
    /// iBeacon reports in arrival order, in batches that are never empty and hold at most
    /// `ScanBatch.limit`. Finishes when the source ends (a capture) or the consuming task is
    /// cancelled; throws on a fatal error with a message an operator can act on.
    func advertisementBatches() -> AsyncThrowingStream<[Advertisement], any Error>
    /// Totals so far.
    func counts() async -> ScanCounts
    /// `ScanCounts.deafSeconds` now, without waiting: the live sentinel reads it at every tick so
    /// that time it could not hear does not count as a tag's absence.
    func deafSeconds() -> Double
}

extension Scanner {
    /// Sources that hear whenever they run (a capture, a stretched replay).
    public func deafSeconds() -> Double { 0 }
}

public enum ScanBatch {
    /// The most advertisements a scanner puts in one batch, so a consumer's work per await (and
    /// the memory a batch holds) stays bounded however fast the source is.
    public static let limit = 256
}
