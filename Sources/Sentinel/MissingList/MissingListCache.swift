#if canImport(Glibc)
import Glibc
#endif
import Durable
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Registry

/// The missing list as last fetched, what the sentinel starts from when the server is away.
public struct MissingListSnapshot: Codable, Equatable, Sendable {
    public var version: Int64
    /// The server's strong ETag for this version, sent back as `If-None-Match`.
    public var etag: String?
    /// When this list was last confirmed by the server (fetched or answered 304), epoch seconds.
    public var confirmedAt: Double
    public var bikes: [MissingBike]

    public init(version: Int64, etag: String?, confirmedAt: Double, bikes: [MissingBike]) {
        self.version = version
        self.etag = etag
        self.confirmedAt = confirmedAt
        self.bikes = bikes
    }
}

/// The missing list on disk, replaced atomically (`AtomicFile`): a crash leaves the old list
/// or the new one, never a torn file.
public struct MissingListCache: Sendable {
    public enum Loaded: Equatable, Sendable {
        case absent
        case loaded(MissingListSnapshot)
        /// The file could not be read as a list; it was renamed to `movedTo` so it can be
        /// inspected, and the list must be fetched afresh.
        case setAside(movedTo: String, reason: String)
    }

    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// Reads the saved list. Never throws: a damaged file is moved aside, stamped with `now`.
    public func load(now: Double) -> Loaded {
        guard FileManager.default.fileExists(atPath: path) else { return .absent }
        let reason: String
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            let decoder = JSONDecoder()
            // A bike at a time, as the server's list is read (`MissingListWire`); the whole file's decoder says what is wrong.
            if let (head, bikes) = data.withUnsafeBytes({
                JSONMemberArray.decode(MissingListSnapshot.self, key: "bikes", entries: MissingBike.self, from: $0, decoder: decoder, { $0 })
            }) {
                return .loaded(MissingListSnapshot(version: head.version, etag: head.etag, confirmedAt: head.confirmedAt, bikes: bikes))
            }
            return .loaded(try decoder.decode(MissingListSnapshot.self, from: data))
        } catch let error as DecodingError {
            reason = "not a missing list (\(Self.describe(error)))"
        } catch {
            reason = "unreadable (\(IOErrorText.describe(error)))"
        }
        let aside = path + ".corrupt-" + Self.stamp(now)
        if rename(path, aside) != 0 {
            // Cannot move it (read-only directory?): the next save replaces it anyway.
            return .setAside(movedTo: path, reason: reason + "; could not rename it: \(String(cString: strerror(errno)))")
        }
        return .setAside(movedTo: aside, reason: reason)
    }

    public func save(_ snapshot: MissingListSnapshot) throws {
        try AtomicFile.write(to: path) { write in try Self.encode(snapshot, into: write) }
    }

    /// The snapshot's JSON, as `JSONEncoder` would write it, one bike at a time and handed on in pieces of about
    /// 64 KB: `JSONEncoder` builds a tree of the whole value before it writes a byte, and at a city's list (10 000
    /// bikes) that tree was the sentinel's peak memory, then the 1.5 MB file held whole was (#36).
    static func encode(_ snapshot: MissingListSnapshot, into write: (Data) throws -> Void) throws {
        let encoder = JSONEncoder()
        var json = Data("{\"version\":".utf8)
        json.append(try encoder.encode(snapshot.version))
        if let etag = snapshot.etag {
            json.append(contentsOf: ",\"etag\":".utf8)
            json.append(try encoder.encode(etag))
        }
        json.append(contentsOf: ",\"confirmedAt\":".utf8)
        json.append(try encoder.encode(snapshot.confirmedAt))
        json.append(contentsOf: ",\"bikes\":[".utf8)
        for (index, bike) in snapshot.bikes.enumerated() {
            if index > 0 { json.append(UInt8(ascii: ",")) }
            json.append(try encoder.encode(bike))
            if json.count >= Self.pieceBytes {
                try write(json)
                json.removeAll(keepingCapacity: true)
            }
        }
        json.append(contentsOf: "]}".utf8)
        try write(json)
    }

    static let pieceBytes = 1 << 16

    /// `20261121T221344Z`: sortable, and free of characters file systems dislike.
    static func stamp(_ epochSeconds: Double) -> String {
        let style = Date.ISO8601FormatStyle(dateSeparator: .omitted, dateTimeSeparator: .standard, timeSeparator: .omitted,
                                            timeZone: TimeZone(identifier: "UTC") ?? .current)
        return Date(timeIntervalSince1970: epochSeconds).formatted(style)
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case let .dataCorrupted(context), let .keyNotFound(_, context), let .typeMismatch(_, context), let .valueNotFound(_, context):
            context.debugDescription
        @unknown default:
            "\(error)"
        }
    }
}
