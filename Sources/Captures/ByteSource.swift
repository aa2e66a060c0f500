/// Where capture bytes come from: a file read in chunks (the edge) or bytes already in memory
/// (tests, fuzzing). Readers only ever ask for the next `count` bytes, so files of any size stream.
public protocol ByteSource {
    /// The next `count` bytes; fewer only when the input ends first.
    mutating func read(_ count: Int) throws(CaptureError) -> ArraySlice<UInt8>
}

/// Bytes in memory; reads are slices, no copies.
public struct MemoryBytes: ByteSource, Sendable {
    private let bytes: ArraySlice<UInt8>
    private var index: Int

    public init(_ bytes: some Collection<UInt8>) {
        self.bytes = ArraySlice(bytes)
        index = self.bytes.startIndex
    }

    public mutating func read(_ count: Int) throws(CaptureError) -> ArraySlice<UInt8> {
        let end = index + min(count, bytes.endIndex - index)
        defer { index = end }
        return bytes[index..<end]
    }
}

/// Sequential reads with the absolute byte offset that damage reports name, plus a peek for
/// format detection.
struct CaptureInput<Source: ByteSource> {
    private var source: Source
    private var peeked: ArraySlice<UInt8> = []
    /// Bytes consumed so far: the file offset of the next read.
    private(set) var offset = 0

    init(_ source: Source) { self.source = source }

    /// The next `count` bytes without consuming them (fewer at end of input).
    mutating func peek(_ count: Int) throws(CaptureError) -> ArraySlice<UInt8> {
        if peeked.count < count {
            peeked = ArraySlice(Array(peeked) + (try source.read(count - peeked.count)))
        }
        return peeked.prefix(count)
    }

    /// Up to `count` bytes; fewer only at end of input.
    mutating func read(_ count: Int) throws(CaptureError) -> ArraySlice<UInt8> {
        let result: ArraySlice<UInt8>
        if peeked.isEmpty {
            result = try source.read(count)
        } else if peeked.count >= count {
            result = peeked.prefix(count)
            peeked = peeked.dropFirst(count)
        } else {
            result = ArraySlice(Array(peeked) + (try source.read(count - peeked.count)))
            peeked = []
        }
        offset += result.count
        return result
    }

    /// Exactly `count` bytes of `what` that starts at `start`, or a truncation error naming that offset.
    mutating func require(_ count: Int, _ what: String, start: Int) throws(CaptureError) -> ArraySlice<UInt8> {
        let bytes = try read(count)
        guard bytes.count == count else {
            throw .truncated(offset: start, what: what, needed: count, available: bytes.count)
        }
        return bytes
    }
}

/// Big- or little-endian integer fields at positions relative to a slice's start.
struct Endian: Sendable {
    var big: Bool

    func u16(_ b: ArraySlice<UInt8>, _ at: Int) -> UInt16 {
        let i = b.startIndex + at
        return big ? UInt16(b[i]) << 8 | UInt16(b[i + 1]) : UInt16(b[i + 1]) << 8 | UInt16(b[i])
    }

    func u32(_ b: ArraySlice<UInt8>, _ at: Int) -> UInt32 {
        let i = b.startIndex + at
        let (x0, x1, x2, x3) = (UInt32(b[i]), UInt32(b[i + 1]), UInt32(b[i + 2]), UInt32(b[i + 3]))
        return big ? x0 << 24 | x1 << 16 | x2 << 8 | x3 : x3 << 24 | x2 << 16 | x1 << 8 | x0
    }

    func u64(_ b: ArraySlice<UInt8>, _ at: Int) -> UInt64 {
        let high = UInt64(u32(b, big ? at : at + 4)), low = UInt64(u32(b, big ? at + 4 : at))
        return high << 32 | low
    }
}
