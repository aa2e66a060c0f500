import Durable
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Why the bikes file could not be read or written; each names the file and what to do.
public enum BikesFileError: Error, Equatable, Sendable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case corrupt(path: String, detail: String)
    case unwritable(path: String, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason):
            "cannot read the bikes file \(path): \(reason)"
        case .corrupt(let path, let detail):
            "the bikes file \(path) is not valid (\(detail)): fix it, or move it aside and add the bikes again"
        case .unwritable(let path, let reason):
            "cannot write the bikes file \(path): \(reason)"
        }
    }
}

/// Loads and saves a `BikeBook` as JSON. A missing file is an empty book; saving replaces the
/// file atomically (write a temporary file beside it, fsync, rename), so a crash mid-write
/// leaves either the old list or the new one, never half of one.
public enum BikesFile {
    /// Files larger than this are not bikes files; refusing them avoids reading a huge file by mistake.
    static let largest = 4 << 20

    public static func load(path: String) throws(BikesFileError) -> BikeBook {
        guard FileManager.default.fileExists(atPath: path) else { return BikeBook() }
        let data: Data
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            if let size = attributes[.size] as? Int, size > largest {
                throw BikesFileError.corrupt(path: path, detail: "\(size) bytes is far too large")
            }
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch let error as BikesFileError {
            throw error
        } catch {
            throw .unreadable(path: path, reason: Self.reason(error))
        }
        do {
            return try JSONDecoder().decode(BikeBook.self, from: data)
        } catch {
            throw .corrupt(path: path, detail: Self.detail(error))
        }
    }

    public static func save(_ book: BikeBook, path: String) throws(BikesFileError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data: Data
        do { data = try encoder.encode(book) } catch { throw .unwritable(path: path, reason: Self.reason(error)) }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        do {
            if !directory.isEmpty {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            }
            try AtomicFile.write(data + Data("\n".utf8), to: path, permissions: 0o644)
        } catch let error as AtomicFileError {
            throw .unwritable(path: path, reason: error.description)
        } catch {
            throw .unwritable(path: path, reason: Self.reason(error))
        }
    }

    private static func reason(_ error: any Error) -> String {
        IOErrorText.describe(error)
    }

    /// The decoder's complaint, with the JSON path that broke, in words.
    private static func detail(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty:
            return "not JSON"
        case DecodingError.dataCorrupted(let context), DecodingError.keyNotFound(_, let context),
             DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return "at \(path.isEmpty ? "the top level" : path): \(context.debugDescription)"
        default:
            return "\(error)"
        }
    }
}
