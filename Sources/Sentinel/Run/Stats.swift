import Scanning

/// Counters shared between the scan and the status writer.
actor Stats {
    struct Snapshot: Sendable {
        var startedAt: Double
        var advertisements = 0
        var iBeacons: Int?
        var scannerRestarts = 0
        var scannerDeafSeconds = 0.0
        var scannerWaitingFor: String?
        var matches = 0
        var created = 0
        var alarms = 0
        /// The scanner's totals as last read; nil before the first.
        var counts: ScanCounts?
        /// Missing bikes whose visit is open now.
        var missingInRange = 0
    }

    private(set) var snapshot: Snapshot

    init(startedAt: Double) { snapshot = Snapshot(startedAt: startedAt) }

    func advertisements(_ count: Int, matched: Int) {
        snapshot.advertisements += count
        snapshot.matches += matched
    }

    func created(_ count: Int) { snapshot.created += count }
    func alarm() { snapshot.alarms += 1 }
    func inRange(_ count: Int) { snapshot.missingInRange = count }
    func scanner(_ counts: ScanCounts) {
        snapshot.counts = counts
        snapshot.iBeacons = counts.iBeacons
        snapshot.scannerRestarts = counts.restarts
        snapshot.scannerDeafSeconds = counts.deafSeconds
        snapshot.scannerWaitingFor = counts.waitingFor
    }
}
