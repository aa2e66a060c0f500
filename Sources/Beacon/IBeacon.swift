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
    public static func decode(companyID: UInt16, payload: some Collection<UInt8>) throws(IBeaconError) -> IBeaconFrame {
        guard companyID == appleCompanyID else { throw .notApple(companyID: companyID) }
        let bytes = ArraySlice(payload)
        guard bytes.count >= 2 else { throw bytes.isEmpty ? .wrongLength(0) : .wrongLength(bytes.count) }
        let s = bytes.startIndex
        guard bytes[s] == 0x02, bytes[s + 1] == 0x15 else { throw .notIBeacon(type: bytes[s], length: bytes[s + 1]) }
        guard bytes.count == payloadLength else { throw .wrongLength(bytes.count) }
        let u = bytes[(s + 2)..<(s + 18)].map { $0 }
        let uuid = UUID(uuid: (u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7],
                               u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]))
        let major = UInt16(bytes[s + 18]) << 8 | UInt16(bytes[s + 19])
        let minor = UInt16(bytes[s + 20]) << 8 | UInt16(bytes[s + 21])
        let power = Int(Int8(bitPattern: bytes[s + 22]))
        return IBeaconFrame(
            beacon: BeaconID(uuid: uuid, major: major, minor: minor),
            measuredPower: plausibleMeasuredPower.contains(power) ? power : nil
        )
    }

    /// Decodes manufacturer-specific data that starts with the little-endian company id (`4C 00 02 15 …`).
    public static func decode(manufacturerData: some Collection<UInt8>) throws(IBeaconError) -> IBeaconFrame {
        let bytes = ArraySlice(manufacturerData)
        guard !bytes.isEmpty else { throw .empty }
        guard bytes.count >= 2 else { throw .wrongLength(bytes.count) }
        let company = UInt16(bytes[bytes.startIndex]) | UInt16(bytes[bytes.startIndex + 1]) << 8
        return try decode(companyID: company, payload: bytes.dropFirst(2))
    }

    /// Decodes a full advertising-data buffer: the first manufacturer-specific AD structure that is an iBeacon wins.
    public static func decode(advertisingData: some Collection<UInt8>) throws(IBeaconError) -> IBeaconFrame {
        guard !advertisingData.isEmpty else { throw .empty }
        let structures: [ADStructure]
        do {
            structures = try AdvertisingData.parse(advertisingData)
        } catch {
            throw .malformedAdvertisingData(error)
        }
        var firstError: IBeaconError?
        for structure in structures where structure.type == ADStructure.manufacturerSpecific {
            do {
                return try decode(manufacturerData: structure.data)
            } catch {
                firstError = firstError ?? error
            }
        }
        throw firstError ?? .noManufacturerData
    }

    /// Decodes either form, as a user would paste it: manufacturer data when it starts with Apple's id, else a full AD buffer.
    public static func decode(anyForm bytes: some Collection<UInt8>) throws(IBeaconError) -> IBeaconFrame {
        let array = Array(bytes)
        if array.count >= 2, array[0] == 0x4C, array[1] == 0x00 {
            return try decode(manufacturerData: array)
        }
        return try decode(advertisingData: array)
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
