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

    public var description: String {
        switch self {
        case let .unexpectedShape(detail): "the server's missing list is not in the expected form (\(detail)); are the server and sentinel versions compatible?"
        }
    }
}

/// The JSON of `GET /v1/missing`: a `MissingList` in full, or a `MissingDelta`.
enum MissingListWire {
    static func decode(_ data: Data, etag: String?) throws -> MissingListAnswer {
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
