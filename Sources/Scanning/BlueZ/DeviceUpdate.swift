import Beacon
import DBus

/// What one `org.bluez.Device1` property set (InterfacesAdded, PropertiesChanged or
/// GetManagedObjects) says about the advertisement BlueZ just heard.
///
/// Each property is read on its own: a wrong-typed one is listed in `problems` and skipped, the
/// others still count.
struct DeviceUpdate: Equatable, Sendable {
    var address: BluetoothAddress?
    var rssi: Int?
    /// Manufacturer-specific data by company id, as BlueZ hands it (payload after the company id).
    var manufacturerData: [UInt16: [UInt8]]?
    /// Properties that were present but unreadable, as log text.
    var problems: [String] = []
    /// Whether the set carries advertisement content (RSSI or ManufacturerData), readable or not.
    var carriesAdvertisement = false

    init(properties: [String: BusValue]) {
        carriesAdvertisement = properties["RSSI"] != nil || properties["ManufacturerData"] != nil
        if let value = properties["Address"] {
            do {
                let text = try value.string()
                if let parsed = BluetoothAddress(text) {
                    address = parsed
                } else {
                    problems.append("Address \"\(text)\" is not AA:BB:CC:DD:EE:FF")
                }
            } catch {
                problems.append("Address: \(error)")
            }
        }
        if let value = properties["RSSI"] {
            do {
                rssi = Int(try value.int16())
            } catch {
                problems.append("RSSI: \(error)")
            }
        }
        if let value = properties["ManufacturerData"] {
            do {
                manufacturerData = try Self.manufacturerData(value)
            } catch {
                problems.append("ManufacturerData: \(error)")
            }
        }
    }

    /// `a{qv}` with each variant holding `ay`.
    static func manufacturerData(_ value: BusValue) throws(BusError) -> [UInt16: [UInt8]] {
        var out = [UInt16: [UInt8]]()
        for entry in try value.dictionary("a{qv}") {
            out[try entry.key.uint16()] = try entry.value.variant().bytes()
        }
        return out
    }
}
