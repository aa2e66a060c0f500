#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A beacon's identity. Never the MAC address: tags and phones rotate random addresses.
public struct BeaconID: Hashable, Comparable, Sendable {
    public var uuid: UUID
    public var major: UInt16
    public var minor: UInt16

    public init(uuid: UUID, major: UInt16, minor: UInt16) {
        self.uuid = uuid
        self.major = major
        self.minor = minor
    }

    /// Parses the canonical form `UUID:MAJOR:MINOR` (case-insensitive UUID, decimal numbers).
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3,
              let uuid = UUID(uuidString: String(parts[0])),
              let major = UInt16(parts[1]),
              let minor = UInt16(parts[2])
        else { return nil }
        self.init(uuid: uuid, major: major, minor: minor)
    }

    public static func < (lhs: BeaconID, rhs: BeaconID) -> Bool {
        (lhs.uuid.uuidString, lhs.major, lhs.minor) < (rhs.uuid.uuidString, rhs.major, rhs.minor)
    }
}

extension BeaconID: CustomStringConvertible, LosslessStringConvertible {
    /// `UUID:MAJOR:MINOR` with the UUID in upper-case canonical form.
    public var description: String { "\(uuid.uuidString):\(major):\(minor)" }
}

extension BeaconID: Codable {
    enum CodingKeys: String, CodingKey { case uuid, major, minor }
}
