import Beacon

/// One advertising report from an LE Advertising Report or LE Extended Advertising Report event.
public struct AdvertisingReport: Sendable, Equatable {
    /// Legacy: ADV_IND 0 … SCAN_RSP 4. Extended: the 16-bit event-type bit field.
    public var eventType: UInt16
    public var addressType: UInt8
    /// Nil for anonymous advertisements (extended address type 0xFF).
    public var address: BluetoothAddress?
    /// dBm, or nil when the controller says 127 ("not available") or sends a value outside the
    /// spec's -127...+20 range, which no receiver can have measured.
    public var rssi: Int?
    /// The advertiser's TX power from an extended report, nil when absent or not available.
    public var txPower: Int?
    public var data: ArraySlice<UInt8>
    /// False when an extended report says more data follows or the data was truncated:
    /// a partial buffer must not be decoded as if it were whole.
    public var isComplete: Bool
    public var isExtended: Bool
}

public enum HCIParseError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A field runs past the end of the packet; `offset` counts from the packet's first byte.
    case truncated(field: String, offset: Int, needed: Int, available: Int)

    public var description: String {
        switch self {
        case let .truncated(field, offset, needed, available):
            "HCI event truncated: \(field) at byte \(offset) needs \(needed) bytes, \(available) remain"
        }
    }
}

/// Parses H4 HCI packets into advertising reports (Core Spec v5.4, Vol 4, Part E, §7.7.65.2 and §7.7.65.13).
///
/// Pure and allocation-free apart from what the caller does with each report, so the raw HCI
/// backend, the capture readers and the fuzz tests all share one implementation.
public enum HCIEventParser {
    public static let eventPacket: UInt8 = 0x04
    public static let leMetaEvent: UInt8 = 0x3E
    public static let leAdvertisingReport: UInt8 = 0x02
    public static let leExtendedAdvertisingReport: UInt8 = 0x0D
    /// RSSI and TX power value meaning "not available".
    static let notAvailable: Int8 = 127
    /// Extended address type meaning "no address provided (anonymous advertisement)".
    static let anonymousAddressType: UInt8 = 0xFF

    /// Calls `body` for each advertising report in an H4 packet (packet-type byte first).
    /// Packets that are not LE advertising report events yield nothing. Reports before a
    /// malformed one are delivered before the error is thrown, as with damaged captures.
    public static func forEachReport(
        inH4 packet: ArraySlice<UInt8>,
        _ body: (AdvertisingReport) -> Void
    ) throws(HCIParseError) {
        var reader = FieldReader(packet)
        guard let type = reader.peekByte(), type == eventPacket else { return }
        reader.skip(1)
        let header = try reader.take(2, "event header")
        guard header[header.startIndex] == leMetaEvent else { return }
        let declared = Int(header[header.startIndex + 1])
        let parameters = try reader.take(declared, "event parameters")
        var params = FieldReader(parameters, base: reader.consumed - declared)
        guard let subevent = params.peekByte() else { return }
        switch subevent {
        case leAdvertisingReport:
            params.skip(1)
            try legacyReports(&params, body)
        case leExtendedAdvertisingReport:
            params.skip(1)
            try extendedReports(&params, body)
        default:
            return
        }
    }

    /// Legacy reports: Event_Type, Address_Type, Address, Data_Length, Data, RSSI per report,
    /// one report after another (the layout Linux and every controller in our captures use).
    static func legacyReports(_ r: inout FieldReader, _ body: (AdvertisingReport) -> Void) throws(HCIParseError) {
        let count = Int(try r.byte("Num_Reports"))
        for _ in 0..<count {
            let fixed = try r.take(9, "advertising report header")
            let s = fixed.startIndex
            let length = Int(fixed[s + 8])
            let data = try r.take(length, "advertising data")
            let rssi = Int8(bitPattern: try r.byte("RSSI"))
            body(AdvertisingReport(
                eventType: UInt16(fixed[s]),
                addressType: fixed[s + 1],
                address: BluetoothAddress(littleEndian: fixed[(s + 2)..<(s + 8)]),
                rssi: Advertisement.rssiRange.contains(Int(rssi)) ? Int(rssi) : nil,
                txPower: nil,
                data: data,
                isComplete: true,
                isExtended: false
            ))
        }
    }

    /// Extended reports: Event_Type (2), Address_Type, Address (6), Primary_PHY, Secondary_PHY,
    /// Advertising_SID, TX_Power, RSSI, Periodic_Advertising_Interval (2), Direct_Address_Type,
    /// Direct_Address (6), Data_Length, Data.
    static func extendedReports(_ r: inout FieldReader, _ body: (AdvertisingReport) -> Void) throws(HCIParseError) {
        let count = Int(try r.byte("Num_Reports"))
        for _ in 0..<count {
            let fixed = try r.take(24, "extended advertising report header")
            let s = fixed.startIndex
            let eventType = UInt16(fixed[s]) | UInt16(fixed[s + 1]) << 8
            let addressType = fixed[s + 2]
            let txPower = Int8(bitPattern: fixed[s + 12])
            let rssi = Int8(bitPattern: fixed[s + 13])
            let length = Int(fixed[s + 23])
            let data = try r.take(length, "extended advertising data")
            // Bits 5–6: data status, 0 = complete.
            let dataStatus = (eventType >> 5) & 0b11
            body(AdvertisingReport(
                eventType: eventType,
                addressType: addressType,
                address: addressType == anonymousAddressType ? nil : BluetoothAddress(littleEndian: fixed[(s + 3)..<(s + 9)]),
                rssi: Advertisement.rssiRange.contains(Int(rssi)) ? Int(rssi) : nil,
                txPower: txPower == notAvailable ? nil : Int(txPower),
                data: data,
                isComplete: dataStatus == 0,
                isExtended: true
            ))
        }
    }
}

/// Bounds-checked sequential reads over a packet; every read either succeeds or throws, never traps.
struct FieldReader {
    private let bytes: ArraySlice<UInt8>
    private var index: Int
    /// Offset of `bytes` within the whole packet, for error messages.
    private let base: Int

    init(_ bytes: ArraySlice<UInt8>, base: Int = 0) {
        self.bytes = bytes
        index = bytes.startIndex
        self.base = base
    }

    var consumed: Int { index - bytes.startIndex }
    var remaining: Int { bytes.endIndex - index }

    func peekByte() -> UInt8? { index < bytes.endIndex ? bytes[index] : nil }

    mutating func skip(_ count: Int) { index = min(index + count, bytes.endIndex) }

    mutating func byte(_ field: String) throws(HCIParseError) -> UInt8 {
        let one = try take(1, field)
        return one[one.startIndex]
    }

    mutating func take(_ count: Int, _ field: String) throws(HCIParseError) -> ArraySlice<UInt8> {
        guard count <= remaining else {
            throw .truncated(field: field, offset: base + consumed, needed: count, available: remaining)
        }
        defer { index += count }
        return bytes[index..<(index + count)]
    }
}
