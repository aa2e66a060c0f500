import Beacon
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One `espresense/devices/<id>/<room>` message, in the fields ESPresense documents (id, name,
/// rssi@1m, rssi, raw, distance, speed, mac, interval), so Home Assistant's `mqtt_room` and the
/// ESPresense companion read a sentinel like an ESPresense node.
struct ESPresenseReport: Encodable, Equatable {
    /// ESPresense's id for an iBeacon: `iBeacon:<uuid>-<major>-<minor>`, UUID in lower case.
    var id: String
    var name: String
    /// The calibrated RSSI at 1 m the distance rests on (the estimator's default when the tag
    /// never sent a plausible one).
    var rssiAt1m: Int
    /// Smoothed RSSI, dBm.
    var rssi: Int?
    /// The last advertisement's RSSI, dBm.
    var raw: Int
    /// Metres, two decimals.
    var distance: Double
    /// Metres a second since the last report (negative: coming closer).
    var speed: Double
    /// Lower-case hex without separators, as ESPresense writes it.
    var mac: String?
    /// Milliseconds between the last two advertisements; absent until two were heard.
    var interval: Int?

    enum CodingKeys: String, CodingKey { case id, name, rssiAt1m = "rssi@1m", rssi, raw, distance, speed, mac, interval }

    init(beacon: BeaconID, name: String, advertisement: Advertisement, measuredPower: Int, rssi: Int?, distance: Double, speed: Double, interval: Double?) {
        id = "iBeacon:\(beacon.uuid.uuidString.lowercased())-\(beacon.major)-\(beacon.minor)"
        self.name = name
        rssiAt1m = measuredPower
        self.rssi = rssi
        raw = advertisement.rssi
        self.distance = (distance * 100).rounded() / 100
        self.speed = (speed * 100).rounded() / 100
        mac = advertisement.address.map { "\($0)".replacing(":", with: "").lowercased() }
        self.interval = interval.map { Int(($0 * 1000).rounded()) }
    }

    var json: [UInt8]? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(self)).map(Array.init)
    }
}
