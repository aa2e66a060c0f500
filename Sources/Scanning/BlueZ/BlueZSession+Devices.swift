import DBus
import Logging

/// What a device's properties say: an iBeacon report into the batch, anything else counted (and, if asked, forgotten by BlueZ).
extension BlueZSession {
    func handleDevice(_ path: String, _ properties: [String: BusValue], invalidated: [String]) {
        devices.invalidate(invalidated, path: path)
        let update = DeviceUpdate(properties: properties)
        let report = devices.apply(update, path: path, time: clock())
        switch report {
        case .none:
            if !update.problems.isEmpty {
                logger.debug("skipping unreadable device properties", metadata: ["path": "\(path)", "problems": "\(update.problems.joined(separator: "; "))"])
            }
        case let .iBeacon(advertisement):
            shared.update { $0.reports += 1; $0.iBeacons += 1 }
            lastActivity = monotonic.now
            batch.append(advertisement)
        case let .other(reason):
            shared.update { $0.reports += 1; $0.otherAdvertisements += 1 }
            lastActivity = monotonic.now
            forget(path, reason: reason)
        case let .malformed(problems):
            shared.update { $0.reports += 1; $0.errors += 1 }
            lastActivity = monotonic.now
            logger.debug("skipping a malformed advertisement", metadata: ["path": "\(path)", "problems": "\(problems.joined(separator: "; "))"])
        }
    }

    /// Hands the reports gathered so far to the stream: one await for the consumer per dispatch.
    func flush() {
        guard !batch.isEmpty else { return }
        continuation.yield(batch)
        batch.removeAll(keepingCapacity: true)
    }

    /// Asks BlueZ to drop a device that is not an iBeacon, so its cache stays small.
    private func forget(_ path: String, reason: String) {
        guard configuration.removesIgnoredDevices, case let .scanning(adapter) = phase, let connection,
              removals.allow(path, now: elapsed())
        else { return }
        logger.debug("asking BlueZ to forget a device that is not an iBeacon", metadata: ["path": "\(path)", "reason": "\(reason)"])
        do {
            try connection.send(BlueZ.service, adapter.path, BlueZ.adapterInterface, "RemoveDevice", [.objectPath(path)])
        } catch {
            logger.debug("RemoveDevice not sent", metadata: ["path": "\(path)", "error": "\(error)"])
        }
    }
}
