import BikebeaconAPI
import CompressNIO
import NIOCore
import Registry
import ServerClient
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the server answered to a missing-list request.
public enum MissingListAnswer: Equatable, Sendable {
    /// The list held is current (HTTP 304).
    case notModified
    /// The whole list: replaces whatever is held.
    case full(version: Int64, bikes: [MissingBike], etag: String?)
    /// Changes since the version held.
    case delta(MissingListDelta, etag: String?)
}

public enum MissingListWireError: Error, CustomStringConvertible, Sendable {
    case unexpectedShape(String)
    /// A gzipped list that unpacks to more than the limit: a broken or hostile server (a gzip bomb).
    case unpacksTooLarge(limit: String)
    case notGzip(String)
    case unknownEncoding(String)

    public var description: String {
        switch self {
        case let .unexpectedShape(detail): "the server's missing list is not in the expected form (\(detail)); are the server and sentinel versions compatible?"
        case let .unpacksTooLarge(limit):
            "the server's gzipped missing list unpacks to more than \(limit) and was refused (a broken server or proxy, or a gzip bomb); the list held stays in use"
        case let .notGzip(detail): "the server's missing list says it is gzipped but is not (\(detail)); a proxy may have damaged it"
        case let .unknownEncoding(name): "the server sent the missing list as '\(name)', which the sentinel did not ask for (only gzip); check the proxy in front of the server"
        }
    }
}

/// The JSON of `GET /v1/missing`: a `MissingList` in full, or a `MissingDelta`.
public enum MissingListWire {
    /// The body's bytes as sent: plain, or gzipped (`Content-Encoding: gzip`, which the sentinel asks
    /// for) and unpacked to at most `limit` bytes, so a small answer cannot make the sentinel hold more
    /// than a plain one could. A client that unpacks answers itself (`HTTPClient.shared` does, within 25
    /// times their packed size) leaves the header: a body without gzip's magic bytes is taken as it is
    /// (JSON never starts with them).
    public static func unpack(_ body: ByteBuffer, contentEncoding: String?, limit: Int = ServerConnection.maxBody) throws -> Data {
        switch contentEncoding?.lowercased() {
        case nil, "", "identity":
            return Data(body.readableBytesView)
        case "gzip", "x-gzip":
            guard body.readableBytesView.starts(with: [0x1f, 0x8b]) else { return Data(body.readableBytesView) }
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
            return Data(unpacked.readableBytesView)
        case let other?:
            throw MissingListWireError.unknownEncoding(other)
        }
    }

    public static func decode(_ data: Data, etag: String?) throws -> MissingListAnswer {
        let decoder = JSONDecoder()
        if let full = try? decoder.decode(MissingList.self, from: data) {
            return .full(version: full.version, bikes: full.beacons.map(\.bike), etag: etag)
        }
        do {
            return .delta(try decoder.decode(MissingDelta.self, from: data).delta, etag: etag)
        } catch {
            throw MissingListWireError.unexpectedShape(String(describing: error))
        }
    }
}
