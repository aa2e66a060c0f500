import Beacon
import DBus

/// What a device update amounts to.
enum DeviceReport: Equatable, Sendable {
    /// Nothing was heard (no RSSI or manufacturer data in the update, or no RSSI known yet).
    case none
    case iBeacon(Advertisement)
    /// An advertisement that is not an iBeacon; the reason is for the debug log.
    case other(String)
    /// An advertisement whose properties could not be read.
    case malformed([String])
}

/// BlueZ's devices as the scanner knows them: the latest address, RSSI and manufacturer data per
/// object path. BlueZ sends only what changed, so an RSSI-only PropertiesChanged is paired with the
/// cached manufacturer data to make a report. Pure: time is an input.
struct DeviceTable: Sendable {
    struct Entry: Equatable, Sendable {
        var address: BluetoothAddress?
        var rssi: Int?
        var manufacturerData: [UInt16: [UInt8]] = [:]
    }

    private(set) var entries: [String: Entry] = [:]

    /// Applies an update for the device at `path` and says whether it makes an iBeacon report.
    mutating func apply(_ update: DeviceUpdate, path: String, time: Double) -> DeviceReport {
        var entry = entries[path] ?? Entry()
        if let address = update.address { entry.address = address }
        if let rssi = update.rssi { entry.rssi = rssi }
        if let data = update.manufacturerData { entry.manufacturerData.merge(data) { $1 } }
        entries[path] = entry

        guard update.carriesAdvertisement, let rssi = entry.rssi else { return .none }
        var reason = entry.manufacturerData.isEmpty
            ? "no manufacturer data"
            : "manufacturer data of company " + entry.manufacturerData.keys.sorted().map(companyText).joined(separator: ", ")
        if let payload = entry.manufacturerData[IBeacon.appleCompanyID] {
            do {
                let frame = try IBeacon.decode(companyID: IBeacon.appleCompanyID, payload: payload)
                return .iBeacon(Advertisement(
                    beacon: frame.beacon, rssi: rssi, measuredPower: frame.measuredPower,
                    address: entry.address, time: time
                ))
            } catch {
                reason = error.description
            }
        }
        return update.problems.isEmpty ? .other(reason) : .malformed(update.problems)
    }

    /// Drops properties BlueZ invalidated (RSSI goes when discovery stops).
    mutating func invalidate(_ names: [String], path: String) {
        guard var entry = entries[path] else { return }
        if names.contains("RSSI") { entry.rssi = nil }
        if names.contains("ManufacturerData") { entry.manufacturerData = [:] }
        if names.contains("Address") { entry.address = nil }
        entries[path] = entry
    }

    mutating func remove(_ path: String) {
        entries[path] = nil
    }

    mutating func removeAll() {
        entries.removeAll()
    }

    private func companyText(_ id: UInt16) -> String {
        let hex = String(id, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
