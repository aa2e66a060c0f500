import Beacon
import Captures
import Foundation
import Registry

/// A busy street as a btsnoop capture: `beacons` tags advertising round robin at 1 Hz each, as
/// HCI LE Advertising Report events, with 1 % of the tags on the missing list.
public enum SyntheticStreet {
    public static let uuid = UUID(uuidString: "F7826DA6-4FA2-4E98-8024-BC5B71E0893E") ?? UUID()

    public static func beacon(_ index: Int) -> BeaconID {
        BeaconID(uuid: uuid, major: UInt16(truncatingIfNeeded: index >> 16), minor: UInt16(truncatingIfNeeded: index))
    }

    /// The H4 LE Advertising Report event of one tag, without its trailing RSSI byte.
    public static func reportFrame(_ index: Int) -> [UInt8] {
        let data = IBeacon.advertisingData(for: beacon(index), measuredPower: -59)
        let address: [UInt8] = [UInt8(truncatingIfNeeded: index), UInt8(truncatingIfNeeded: index >> 8), 0x33, 0x22, 0x11, 0xC0]
        return [0x04, 0x3E, UInt8(12 + data.count), 0x02, 0x01, 0x00, 0x01] + address + [UInt8(data.count)] + data
    }

    /// Writes the capture; returns the missing 1 % (every hundredth tag).
    public static func write(to path: String, advertisements: Int, beacons: Int) throws -> [MissingBike] {
        let writer = try BtsnoopFileWriter(path: path)
        let frames = (0..<beacons).map(reportFrame)
        for n in 0..<advertisements {
            let rssi = UInt8(bitPattern: Int8(-50 - (n * 7919) % 40))
            try writer.append(h4: frames[n % beacons] + [rssi], time: 1_700_000_000 + Double(n) / Double(beacons))
        }
        return stride(from: 0, to: beacons, by: 100).map {
            MissingBike(beacon: beacon($0), description: BikeDescription(make: "Trek", model: "FX 3", colour: "black"))
        }
    }
}
