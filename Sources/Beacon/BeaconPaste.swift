#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A beacon's identity from whatever an owner pastes: typing a 36-character UUID plus major and
/// minor by hand is what FindMyBike called "a difficult and error-prone process". Accepted:
/// - `UUID/MAJOR/MINOR` with any separators or labels and in any case (`UUID:MAJOR:MINOR`,
///   `uuid 494e… major 20597 minor 62207`, a line copied from nRF Connect or Beacon Scanner,
///   ESPresense's `iBeacon:uuid-major-minor`), the UUID with or without dashes;
/// - the raw iBeacon hex (`4c000215…`, `0215…`, or the whole advertising data `020106…`);
/// - a URL with `uuid=`, `major=` and `minor=` query parameters.
/// Pure; the error says what was wrong and what would work.
public enum BeaconPaste {
    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        case empty
        case noUUID
        case noMajorMinor(uuid: String)
        case outOfRange(name: String, value: String)
        case notIBeacon(IBeaconError)

        public var description: String {
            switch self {
            case .empty:
                "nothing to read: paste the tag's UUID with its major and minor, the raw iBeacon hex (4c000215…), or a URL with uuid=, major= and minor="
            case .noUUID:
                "no beacon UUID in it: paste the UUID with its major and minor (UUID/MAJOR/MINOR), the raw iBeacon hex (4c000215…), or a URL with uuid=, major= and minor="
            case .noMajorMinor(let uuid):
                "found the UUID \(uuid) but not its major and minor: add them after it, e.g. \(uuid)/1/2"
            case .outOfRange(let name, let value):
                "\(name) \(value) is not a beacon number: major and minor are whole numbers from 0 to 65535"
            case .notIBeacon(let error):
                "that hex is not an iBeacon frame (\(error)): paste the manufacturer data as the tag's app shows it, 4c000215 then 21 bytes"
            }
        }
    }

    public static func parse(_ text: String) throws(Failure) -> BeaconID {
        let trimmed = String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
        guard !trimmed.isEmpty else { throw .empty }
        if let query = queryParameters(trimmed) { return try fromQuery(query) }
        if let frame = try rawFrame(trimmed) { return frame.beacon }
        return try fromText(trimmed)
    }

    // MARK: URL

    /// `uuid`, `major` and `minor` from a URL's query (or any `key=value&…` text), keys in any case.
    static func queryParameters(_ text: String) -> [String: String]? {
        guard text.lowercased().contains("uuid=") else { return nil }
        let query = text.split(separator: "?", maxSplits: 1).last.map(String.init) ?? text
        var parameters: [String: String] = [:]
        for pair in query.split(whereSeparator: { $0 == "&" || $0 == ";" || $0 == "#" }) {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            parameters[parts[0].lowercased()] = String(parts[1])
        }
        return parameters
    }

    static func fromQuery(_ query: [String: String]) throws(Failure) -> BeaconID {
        guard let uuidText = query["uuid"], let uuid = uuid(from: uuidText) else { throw .noUUID }
        guard let majorText = query["major"], let minorText = query["minor"] else { throw .noMajorMinor(uuid: uuid.uuidString) }
        return BeaconID(uuid: uuid, major: try number("major", majorText), minor: try number("minor", minorText))
    }

    // MARK: Raw hex

    /// The frame, when the text is hex that starts like an iBeacon (with or without Apple's
    /// company id, or a whole advertising data buffer); nil when it is not hex of that shape.
    static func rawFrame(_ text: String) throws(Failure) -> IBeaconFrame? {
        guard var bytes = Hex.bytes(text.filter { $0 != "-" }), bytes.count >= 4 else { return nil }
        if bytes.starts(with: [0x02, 0x15]) { bytes = [0x4C, 0x00] + bytes }
        let manufacturer = bytes.starts(with: [0x4C, 0x00, 0x02, 0x15])
        let advertising = bytes.starts(with: [0x02, 0x01]) && bytes.count > 3
        guard manufacturer || advertising else { return nil }
        do {
            return try IBeacon.decode(anyForm: bytes)
        } catch {
            throw .notIBeacon(error)
        }
    }

    // MARK: Free text

    static func fromText(_ text: String) throws(Failure) -> BeaconID {
        let characters = Array(text)
        guard let (uuid, end) = findUUID(characters) else { throw .noUUID }
        // Labels count wherever they stand (some apps list Major and Minor before the UUID).
        let labelled = (labelledNumber("major", in: characters), labelledNumber("minor", in: characters))
        if let major = labelled.0, let minor = labelled.1 {
            return BeaconID(uuid: uuid, major: try number("major", major), minor: try number("minor", minor))
        }
        let numbers = plainNumbers(characters, from: end)
        guard numbers.count >= 2 else { throw .noMajorMinor(uuid: uuid.uuidString) }
        return BeaconID(uuid: uuid, major: try number("major", numbers[0]), minor: try number("minor", numbers[1]))
    }

    /// The first UUID (dashed 8-4-4-4-12, or 32 hex digits) not run together with more hex, and where it ends.
    static func findUUID(_ characters: [Character]) -> (UUID, Int)? {
        let dashed = [8, 4, 4, 4, 12]
        var start = 0
        while start < characters.count {
            if start > 0, characters[start - 1].isHexDigit { start += 1; continue }
            for groups in [dashed, [32]] {
                var position = start
                var matched = true
                for (index, length) in groups.enumerated() {
                    if index > 0 {
                        guard position < characters.count, characters[position] == "-" else { matched = false; break }
                        position += 1
                    }
                    guard position + length <= characters.count,
                          characters[position..<(position + length)].allSatisfy(\.isHexDigit) else { matched = false; break }
                    position += length
                }
                if matched, position == characters.count || !characters[position].isHexDigit,
                   let uuid = uuid(from: String(characters[start..<position])) {
                    return (uuid, position)
                }
            }
            start += 1
        }
        return nil
    }

    static func uuid(from text: String) -> UUID? {
        let hex = text.filter(\.isHexDigit)
        guard hex.count == 32, text.allSatisfy({ $0.isHexDigit || $0 == "-" }) else { return nil }
        let digits = Array(hex)
        let dashed = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(digits[$0]) }.joined(separator: "-")
        return UUID(uuidString: dashed)
    }

    /// The number after `label` (`Major: 20597`, `major=0x5075`, `MAJOR 20597`).
    static func labelledNumber(_ label: String, in characters: [Character]) -> String? {
        let lower = String(characters).lowercased()
        guard let range = lower.firstRange(of: label) else { return nil }
        let after = lower[range.upperBound...].drop { !$0.isNumber }
        let token = after.prefix { $0.isHexDigit || $0 == "x" }
        return token.isEmpty ? nil : String(token)
    }

    /// Whole numbers from `start` on, in order; a negative one (`-62 dBm` of a power reading) is
    /// skipped, a dash right after hex (`…4857-20597-62207`) is a separator.
    static func plainNumbers(_ characters: [Character], from start: Int) -> [String] {
        var numbers: [String] = []
        var index = start
        while index < characters.count {
            // A number that is no digit (`¾`, `²`, `Ⅻ`) is skipped like any other character: the scan
            // below takes digits only, so starting at one would not move (a fuzzed paste hung here).
            guard characters[index].isNumber, characters[index].isHexDigit else { index += 1; continue }
            var end = index
            while end < characters.count, characters[end].isHexDigit || characters[end] == "x" { end += 1 }
            let negative = index > 0 && characters[index - 1] == "-" && (index < 2 || !characters[index - 2].isHexDigit)
            if !negative { numbers.append(String(characters[index..<end])) }
            index = end
        }
        return numbers
    }

    /// Decimal, or hex with `0x`.
    static func number(_ name: String, _ text: String) throws(Failure) -> UInt16 {
        let lower = text.lowercased()
        let value = lower.hasPrefix("0x") ? UInt16(lower.dropFirst(2), radix: 16) : UInt16(lower)
        guard let value else { throw .outOfRange(name: name, value: text) }
        return value
    }
}
