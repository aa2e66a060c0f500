import CompressNIO
import NIOCore
import ServerClient
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Unpacking a gzipped answer, apart from the decoding beside it (which the fuzzer builds alone, without NIO).
extension MissingListWire {
    /// The body's bytes as sent: plain, or gzipped (`Content-Encoding: gzip`, which the sentinel asks
    /// for) and unpacked to at most `limit` bytes, so a small answer cannot make the sentinel hold more
    /// than a plain one could. A client that unpacks answers itself (`HTTPClient.shared` does, within 25
    /// times their packed size) leaves the header: a body without gzip's magic bytes is taken as it is
    /// (JSON never starts with them).
    public static func unpack(_ body: ByteBuffer, contentEncoding: String?, limit: Int = ServerConnection.maxBody) throws -> ByteBuffer {
        switch contentEncoding?.lowercased() {
        case nil, "", "identity":
            return body
        case "gzip", "x-gzip":
            guard body.readableBytesView.starts(with: [0x1f, 0x8b]) else { return body }
            var packed = body
            let unpacked: ByteBuffer
            do {
                // One byte past the limit: compress-nio may stop at `maxSize` without an error.
                unpacked = try packed.decompress(with: .gzip(), maxSize: limit + 1)
            } catch let error as CompressNIOError where error == .bufferOverflow {
                throw MissingListWireError.unpacksTooLarge(limit: "\(limit >> 20) MB")
            } catch {
                throw MissingListWireError.notGzip("\(error)")
            }
            guard unpacked.readableBytes <= limit else { throw MissingListWireError.unpacksTooLarge(limit: "\(limit >> 20) MB") }
            return unpacked
        case let other?:
            throw MissingListWireError.unknownEncoding(other)
        }
    }

    /// An answer's body unpacked and decoded in the buffer it came in: no copy of a city's list as `Data` (#36).
    public static func decode(_ body: consuming ByteBuffer, contentEncoding: String?, etag: String?) throws -> MissingListAnswer {
        try unpack(body, contentEncoding: contentEncoding).withUnsafeReadableBytes { try decode($0, etag: etag) }
    }
}
