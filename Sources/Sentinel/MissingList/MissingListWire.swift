import BikebeaconAPI
import Registry
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
    public static func decode(_ data: Data, etag: String?) throws -> MissingListAnswer {
        try data.withUnsafeBytes { try decode($0, etag: etag) }
    }

    /// The answer read where its bytes lie (the HTTP client's buffer): a city's list is not copied whole first.
    public static func decode(_ bytes: UnsafeRawBufferPointer, etag: String?) throws -> MissingListAnswer {
        let decoder = JSONDecoder()
        if let (version, bikes) = decodeEntryByEntry(bytes, decoder: decoder) {
            return .full(version: version, bikes: bikes, etag: etag)
        }
        let data = Data(bytes)
        if let full = try? decoder.decode(MissingList.self, from: data) {
            return .full(version: full.version, bikes: full.beacons.map(\.bike), etag: etag)
        }
        do {
            return .delta(try decoder.decode(MissingDelta.self, from: data).delta, etag: etag)
        } catch {
            throw MissingListWireError.unexpectedShape(String(describing: error))
        }
    }

    /// A whole list, its entries decoded one at a time (`JSONMemberArray`): what the whole document's decoder
    /// would give, at a fraction of its memory. Nil when the document is not plainly a list (a delta, damage, an
    /// unusual spelling), which the whole document's decoder then reads or refuses.
    static func decodeEntryByEntry(_ bytes: UnsafeRawBufferPointer, decoder: JSONDecoder) -> (version: Int64, bikes: [MissingBike])? {
        JSONMemberArray.decode(MissingList.self, key: "beacons", entries: MissingBeacon.self, from: bytes, decoder: decoder, \.bike)
            .map { ($0.whole.version, $0.elements) }
    }
}
