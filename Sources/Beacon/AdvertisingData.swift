/// One AD structure of an advertising-data buffer (Core Spec Vol 3, Part C, §11).
public struct ADStructure: Equatable, Sendable {
    public var type: UInt8
    public var data: ArraySlice<UInt8>

    public static let manufacturerSpecific: UInt8 = 0xFF
}

public enum AdvertisingDataError: Error, Equatable, Sendable, CustomStringConvertible {
    /// An AD structure claims more bytes than the buffer holds.
    case truncated(offset: Int, declaredLength: Int, available: Int)

    public var description: String {
        switch self {
        case let .truncated(offset, declared, available):
            "AD structure at byte \(offset) declares \(declared) bytes but only \(available) remain"
        }
    }
}

public enum AdvertisingData {
    /// Splits a buffer into AD structures. A zero length byte is padding and ends the data,
    /// as controllers pad short advertisements with zeros.
    public static func parse(_ bytes: some Collection<UInt8>) throws(AdvertisingDataError) -> [ADStructure] {
        let buffer = ArraySlice(bytes)
        var structures: [ADStructure] = []
        var index = buffer.startIndex
        while index < buffer.endIndex {
            let length = Int(buffer[index])
            if length == 0 { break }
            let available = buffer.endIndex - index - 1
            guard length <= available else {
                throw .truncated(offset: index - buffer.startIndex, declaredLength: length, available: available)
            }
            let body = buffer[(index + 1)...(index + length)]
            structures.append(ADStructure(type: body[body.startIndex], data: body.dropFirst()))
            index += length + 1
        }
        return structures
    }
}
