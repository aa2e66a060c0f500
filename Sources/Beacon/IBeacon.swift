#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The contents of one iBeacon frame.
public struct IBeaconFrame: Equatable, Sendable {
    public var beacon: BeaconID
    /// Calibrated RSSI at 1 m, or nil when the byte is implausible (some Govee units send +12).
    public var measuredPower: Int?

    public init(beacon: BeaconID, measuredPower: Int?) {
        self.beacon = beacon
        self.measuredPower = measuredPower
    }
}

public enum IBeaconError: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    case malformedAdvertisingData(AdvertisingDataError)
    case noManufacturerData
    case notApple(companyID: UInt16)
    case notIBeacon(type: UInt8, length: UInt8)
    case wrongLength(Int)

    public var description: String {
        switch self {
        case .empty: "no bytes"
        case let .malformedAdvertisingData(error): "malformed advertising data: \(error)"
        case .noManufacturerData: "no manufacturer-specific data"
        case let .notApple(companyID): "company id 0x\(hex4(companyID)) is not Apple (0x004C)"
        case let .notIBeacon(type, length): "Apple frame type 0x\(hex2(type)) length \(length) is not iBeacon (0x02, 21)"
        case let .wrongLength(count): "iBeacon payload is \(count) bytes, expected 23"
        }
    }
}

/// iBeacon codec. Strict: company 0x004C, type 0x02, length 0x15, exactly 23 payload bytes.
public enum IBeacon {
    public static let appleCompanyID: UInt16 = 0x004C
    public static let payloadLength = 23
    /// Accepted measured-power range in dBm at 1 m; outside it the value is reported as unknown.
    public static let plausibleMeasuredPower: ClosedRange<Int> = -100...0

    /// Decodes the manufacturer-data value BlueZ hands out for company 0x004C (`02 15 UUID major minor power`).
    @inlinable
    public static func decode(companyID: UInt16, payload: some Collection<UInt8>) throws(IBeaconError) -> IBeaconFrame {
        guard companyID == appleCompanyID else { throw .notApple(companyID: companyID) }
        return try withBytes(payload) { bytes throws(IBeaconError) in try decodePayload(bytes) }
    }

    /// Decodes manufacturer-specific data that starts with the little-endian company id (`4C 00 02 15 …`).
    @inlinable
    public static func decode(manufacturerData: some Collection<UInt8>) throws(IBeaconError) -> IBeaconFrame {
        try withBytes(manufacturerData) { bytes throws(IBeaconError) in try decodeManufacturerData(bytes) }
    }

    /// Decodes a full advertising-data buffer: the first manufacturer-specific AD structure that is an iBeacon wins.
    @inlinable
    public static func decode(advertisingData: some Collection<UInt8>) throws(IBeaconError) -> IBeaconFrame {
        try withBytes(advertisingData) { bytes throws(IBeaconError) in try decodeAdvertisingData(bytes) }
    }

    /// Decodes either form, as a user would paste it: manufacturer data when it starts with Apple's id, else a full AD buffer.
    @inlinable
    public static func decode(anyForm bytes: some Collection<UInt8>) throws(IBeaconError) -> IBeaconFrame {
        try withBytes(bytes) { raw throws(IBeaconError) in
            raw.count >= 2 && raw[0] == 0x4C && raw[1] == 0x00 ? try decodeManufacturerData(raw) : try decodeAdvertisingData(raw)
        }
    }

    // The entry points above are inlinable, so a caller's collection type is specialised where it
    // calls them (an unspecialised generic call costs runtime metadata lookups per advertisement);
    // the cores below are non-generic and allocation-free.

    @usableFromInline
    static func withBytes<C: Collection<UInt8>>(
        _ collection: C, _ body: (UnsafeRawBufferPointer) throws(IBeaconError) -> IBeaconFrame
    ) throws(IBeaconError) -> IBeaconFrame {
        let result: Result<IBeaconFrame, IBeaconError>? = collection.withContiguousStorageIfAvailable { buffer in
            Result { () throws(IBeaconError) in try body(UnsafeRawBufferPointer(buffer)) }
        }
        if let result { return try result.get() }
        return try Array(collection).withUnsafeBytes { raw in
            Result { () throws(IBeaconError) in try body(raw) }
        }.get()
    }

    @usableFromInline
    static func decodeAdvertisingData(_ bytes: UnsafeRawBufferPointer) throws(IBeaconError) -> IBeaconFrame {
        guard !bytes.isEmpty else { throw .empty }
        var firstError: IBeaconError?
        var index = 0
        while index < bytes.count {
            let length = Int(bytes[index])
            if length == 0 { break }
            let available = bytes.count - index - 1
            guard length <= available else {
                throw .malformedAdvertisingData(.truncated(offset: index, declaredLength: length, available: available))
            }
            if bytes[index + 1] == ADStructure.manufacturerSpecific {
                let data = UnsafeRawBufferPointer(rebasing: bytes[(index + 2)..<(index + 1 + length)])
                do {
                    return try decodeManufacturerData(data)
                } catch {
                    firstError = firstError ?? error
                }
            }
            index += length + 1
        }
        throw firstError ?? .noManufacturerData
    }

    @usableFromInline
    static func decodeManufacturerData(_ bytes: UnsafeRawBufferPointer) throws(IBeaconError) -> IBeaconFrame {
        guard !bytes.isEmpty else { throw .empty }
        guard bytes.count >= 2 else { throw .wrongLength(bytes.count) }
        let company = UInt16(bytes[0]) | UInt16(bytes[1]) << 8
        guard company == appleCompanyID else { throw .notApple(companyID: company) }
        return try decodePayload(UnsafeRawBufferPointer(rebasing: bytes[2...]))
    }

    @usableFromInline
    static func decodePayload(_ b: UnsafeRawBufferPointer) throws(IBeaconError) -> IBeaconFrame {
        guard b.count >= 2 else { throw .wrongLength(b.count) }
        guard b[0] == 0x02, b[1] == 0x15 else { throw .notIBeacon(type: b[0], length: b[1]) }
        guard b.count == payloadLength else { throw .wrongLength(b.count) }
        let uuid = UUID(uuid: (b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9],
                               b[10], b[11], b[12], b[13], b[14], b[15], b[16], b[17]))
        let major = UInt16(b[18]) << 8 | UInt16(b[19])
        let minor = UInt16(b[20]) << 8 | UInt16(b[21])
        let power = Int(Int8(bitPattern: b[22]))
        return IBeaconFrame(
            beacon: BeaconID(uuid: uuid, major: major, minor: minor),
            measuredPower: plausibleMeasuredPower.contains(power) ? power : nil
        )
    }

    /// Encodes a frame as advertising data (flags + manufacturer data), as a tag would send it.
    public static func advertisingData(for beacon: BeaconID, measuredPower: Int8) -> [UInt8] {
        [0x02, 0x01, 0x06, 0x1A, 0xFF] + manufacturerData(for: beacon, measuredPower: measuredPower)
    }

    /// Encodes manufacturer data including the company id (`4C 00 02 15 …`).
    public static func manufacturerData(for beacon: BeaconID, measuredPower: Int8) -> [UInt8] {
        let u = beacon.uuid.uuid
        return [0x4C, 0x00, 0x02, 0x15,
                u.0, u.1, u.2, u.3, u.4, u.5, u.6, u.7, u.8, u.9, u.10, u.11, u.12, u.13, u.14, u.15,
                UInt8(beacon.major >> 8), UInt8(beacon.major & 0xFF),
                UInt8(beacon.minor >> 8), UInt8(beacon.minor & 0xFF),
                UInt8(bitPattern: measuredPower)]
    }
}

func hex2(_ value: UInt8) -> String {
    let s = String(value, radix: 16, uppercase: true)
    return s.count == 1 ? "0" + s : s
}

func hex4(_ value: UInt16) -> String {
    hex2(UInt8(value >> 8)) + hex2(UInt8(value & 0xFF))
}
