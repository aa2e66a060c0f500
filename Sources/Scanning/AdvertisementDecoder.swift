import Beacon
import HCI

/// Turns H4 packets into iBeacon `Advertisement`s and keeps the totals. Pure: the packet's
/// time is an input (capture timestamp or the moment the socket delivered it).
public struct AdvertisementDecoder: Sendable {
    public private(set) var counts = ScanCounts()

    public init() {}

    /// Decodes one packet, calling `emit` for each iBeacon report with a usable RSSI.
    /// A malformed event counts as an error and is returned (after any reports before the
    /// damage were emitted) so the caller can log it; it never stops the stream.
    @discardableResult
    public mutating func decode(h4 packet: ArraySlice<UInt8>, time: Double, emit: (Advertisement) -> Void) -> HCIParseError? {
        do {
            try HCIEventParser.forEachReport(inH4: packet) { report in
                counts.reports += 1
                if let advertisement = Self.advertisement(report, time: time) {
                    counts.iBeacons += 1
                    emit(advertisement)
                } else {
                    counts.otherAdvertisements += 1
                }
            }
            return nil
        } catch {
            counts.errors += 1
            return error
        }
    }

    /// Records an error outside the HCI layer (a damaged capture, a failed socket) in the totals.
    public mutating func countError() { counts.errors += 1 }

    /// An iBeacon report as an `Advertisement`; nil for anything else, for partial extended
    /// data, and for reports without an RSSI (127 is "not available", not a reading).
    static func advertisement(_ report: AdvertisingReport, time: Double) -> Advertisement? {
        guard report.isComplete, let rssi = report.rssi,
              let frame = try? IBeacon.decode(advertisingData: report.data)
        else { return nil }
        return Advertisement(beacon: frame.beacon, rssi: rssi, measuredPower: frame.measuredPower,
                             address: report.address, time: time)
    }
}
