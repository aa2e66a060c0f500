#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where the entries of one array in a JSON object lie, found without building the document: the sentinel decodes a
/// city's missing list an entry at a time, so `JSONDecoder`'s map of the whole 1.5 MB document (3.8 MB, heaptrack) is
/// never made (#36, a Pi Zero's 20 MB).
///
/// Structural only: it follows strings (with their escapes) and nesting to find where values begin and end, and
/// checks the commas, colons and brackets between them; whether each part is valid JSON is left to the decoder that
/// part goes to. Nil for anything it does not expect (the key twice, an escaped key, a byte-order mark, bytes after
/// the object): the caller then decodes the whole document, which is right or says what is wrong.
enum JSONMemberArray {
    struct Found: Equatable {
        /// The array, brackets included.
        var array: Range<Int>
        /// Each entry of the array, without the whitespace around it.
        var entries: [Range<Int>]
    }

    static func find(_ key: String, in bytes: UnsafeRawBufferPointer) -> Found? {
        var scanner = Scanner(bytes: bytes)
        return scanner.object(finding: Array(key.utf8))
    }

    /// `Whole` from the document with the array under `key` emptied, and that array's entries decoded one at a time
    /// as `Entry` and each made an `Element`. Nil where `find` is, or when any part does not decode.
    static func decode<Whole: Decodable, Entry: Decodable, Element>(
        _: Whole.Type, key: String, entries _: Entry.Type, from bytes: UnsafeRawBufferPointer, decoder: JSONDecoder,
        _ element: (Entry) -> Element
    ) -> (whole: Whole, elements: [Element])? {
        guard let found = find(key, in: bytes) else { return nil }
        var rest = Data(bytes[..<found.array.lowerBound])
        rest.append(contentsOf: "[]".utf8)
        rest.append(contentsOf: bytes[found.array.upperBound...])
        guard let whole = try? decoder.decode(Whole.self, from: rest) else { return nil }
        var elements: [Element] = []
        elements.reserveCapacity(found.entries.count)
        for range in found.entries {
            guard let entry = try? decoder.decode(Entry.self, from: Data(bytes[range])) else { return nil }
            elements.append(element(entry))
        }
        return (whole, elements)
    }

    private struct Scanner {
        let bytes: UnsafeRawBufferPointer
        var at = 0

        mutating func object(finding key: [UInt8]) -> Found? {
            skipSpace()
            guard take(UInt8(ascii: "{")) else { return nil }
            var found: Found?
            skipSpace()
            if !take(UInt8(ascii: "}")) {
                while true {
                    let nameStart = at
                    guard peek == UInt8(ascii: "\""), skipString() else { return nil }
                    let name = bytes[(nameStart + 1)..<(at - 1)]
                    // An escaped name may spell the key as well: the whole document's decoder must judge it.
                    guard !name.contains(UInt8(ascii: "\\")) else { return nil }
                    let isKey = name.elementsEqual(key)
                    skipSpace()
                    guard take(UInt8(ascii: ":")) else { return nil }
                    skipSpace()
                    if isKey {
                        guard found == nil, let array = array() else { return nil }
                        found = array
                    } else {
                        guard skipValue() else { return nil }
                    }
                    skipSpace()
                    if take(UInt8(ascii: ",")) { skipSpace(); continue }
                    guard take(UInt8(ascii: "}")) else { return nil }
                    break
                }
            }
            skipSpace()
            return at == bytes.count ? found : nil
        }

        private mutating func array() -> Found? {
            let start = at
            guard take(UInt8(ascii: "[")) else { return nil }
            var entries: [Range<Int>] = []
            skipSpace()
            if take(UInt8(ascii: "]")) { return Found(array: start..<at, entries: []) }
            while true {
                let entryStart = at
                guard skipValue() else { return nil }
                entries.append(entryStart..<at)
                skipSpace()
                if take(UInt8(ascii: ",")) { skipSpace(); continue }
                guard take(UInt8(ascii: "]")) else { return nil }
                return Found(array: start..<at, entries: entries)
            }
        }

        /// Past one value: a string, an object or array (to its closing bracket), or a bare word or number.
        private mutating func skipValue() -> Bool {
            guard let first = peek else { return false }
            switch first {
            case UInt8(ascii: "\""):
                return skipString()
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                while let byte = peek {
                    switch byte {
                    case UInt8(ascii: "\""):
                        guard skipString() else { return false }
                        continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["):
                        depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                        if depth == 0 { at += 1; return true }
                    default:
                        break
                    }
                    at += 1
                }
                return false
            case UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: "}"), UInt8(ascii: "]"):
                return false
            default:
                let start = at
                while let byte = peek, !Self.endsWord(byte) { at += 1 }
                return at > start
            }
        }

        /// Past a string from its opening quote; false if it never closes.
        private mutating func skipString() -> Bool {
            at += 1
            while let byte = peek {
                at += byte == UInt8(ascii: "\\") ? 2 : 1
                if byte == UInt8(ascii: "\"") { return true }
            }
            return false
        }

        private mutating func skipSpace() {
            while let byte = peek, Self.isSpace(byte) { at += 1 }
        }

        private mutating func take(_ byte: UInt8) -> Bool {
            guard peek == byte else { return false }
            at += 1
            return true
        }

        private var peek: UInt8? { at < bytes.count ? bytes[at] : nil }

        private static func isSpace(_ byte: UInt8) -> Bool {
            byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
        }

        private static func endsWord(_ byte: UInt8) -> Bool {
            isSpace(byte) || byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]")
                || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[")
        }
    }
}
