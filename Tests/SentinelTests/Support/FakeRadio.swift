import Beacon
import Foundation
import Scanning

/// A radio stand-in: advertises the beacons currently "in range" every 0.2 s (one batch), stamped with the
/// wall clock, like a live scanner. Made deaf, it hears nothing and counts the time as a scanner does
/// while bluetoothd is gone or discovery is refused.
final class FakeRadio: Scanning.Scanner, @unchecked Sendable {
    private let lock = NSLock()
    private var audible: Set<BeaconID> = []
    private var deafSince: Date?
    private var deafBefore = 0.0

    func setAudible(_ beacons: Set<BeaconID>) { lock.withLock { audible = beacons } }

    func setDeaf(_ deaf: Bool) {
        lock.withLock {
            if deaf, deafSince == nil {
                deafSince = Date()
            } else if !deaf, let since = deafSince {
                deafBefore += Date().timeIntervalSince(since)
                deafSince = nil
            }
        }
    }

    func advertisementBatches() -> AsyncThrowingStream<[Advertisement], any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                while !Task.isCancelled {
                    let heard = self.lock.withLock { self.deafSince == nil ? self.audible : [] }.map { beacon in
                        Advertisement(beacon: beacon, rssi: -62, measuredPower: -59, address: nil, time: Date().timeIntervalSince1970)
                    }
                    if !heard.isEmpty { continuation.yield(heard) }
                    try? await Task.sleep(for: .milliseconds(200))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    func counts() async -> ScanCounts { ScanCounts() }

    func deafSeconds() -> Double {
        lock.withLock { deafBefore + (deafSince.map { Date().timeIntervalSince($0) } ?? 0) }
    }
}
