import Beacon

/// Why a capture file could not be read (further). Damage names the byte offset where it starts,
/// so an operator can cut the file there or hand the offset to a hex viewer.
public enum CaptureError: Error, Equatable, Sendable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case unwritable(path: String, reason: String)
    case unknownFormat(firstBytes: [UInt8])
    case unsupportedLinkType(UInt32, offset: Int)
    case truncated(offset: Int, what: String, needed: Int, available: Int)
    case corrupt(offset: Int, reason: String)

    /// The byte offset where the damage starts, when the error is about damage.
    public var offset: Int? {
        switch self {
        case .unreadable, .unwritable, .unknownFormat: nil
        case let .unsupportedLinkType(_, offset), let .truncated(offset, _, _, _), let .corrupt(offset, _): offset
        }
    }

    public var description: String {
        switch self {
        case let .unreadable(path, reason):
            "cannot read \(path): \(reason)"
        case let .unwritable(path, reason):
            "cannot write \(path): \(reason)"
        case let .unknownFormat(firstBytes):
            "not a btsnoop, pcap or pcapng capture (starts with \(Hex.string(firstBytes))); record one with `bikebeacon record`, btmon -w, or Wireshark"
        case let .unsupportedLinkType(type, offset):
            "link type \(type) at byte offset \(offset) is not Bluetooth HCI: btsnoop H1 (1001), H4 (1002) or btmon's monitor (2001), pcap H4 (187) or H4 with phdr (201)"
        case let .truncated(offset, what, needed, available):
            "capture truncated at byte offset \(offset): \(what) needs \(needed) bytes, only \(available) remain"
        case let .corrupt(offset, reason):
            "capture corrupt at byte offset \(offset): \(reason)"
        }
    }
}
