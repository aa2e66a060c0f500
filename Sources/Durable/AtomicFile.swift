#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

public enum AtomicFileError: Error, CustomStringConvertible, Sendable {
    case cannotWrite(path: String, step: String, errno: Int32)

    public var description: String {
        switch self {
        case let .cannotWrite(path, step, code):
            "cannot write \(path) (\(step): \(String(cString: strerror(code)))); check free space and permissions of its directory"
        }
    }
}

/// Replaces a file atomically and durably: write a temporary file, fsync it, rename it over
/// the old one, fsync the directory. A crash at any point leaves the old content or the new,
/// never a torn file.
public enum AtomicFile {
    /// `permissions` are set exactly (not filtered by the umask): 0o600 keeps a session token private.
    /// `durable: false` skips both fsyncs, for files a power cut may lose (a status rewritten every
    /// few seconds): still never torn, but no forced write to an SD card.
    /// `group`: the file's group, set before it appears (a config the service's group may read, no one else).
    public static func write(_ data: Data, to path: String, permissions: mode_t = 0o644, group: gid_t? = nil,
                             durable: Bool = true) throws(AtomicFileError) {
        let (fd, temporary) = try openTemporary(for: path, permissions: permissions)
        let failure = writeAll(data, to: fd, temporary: temporary) ?? finish(fd, temporary: temporary, permissions: permissions, group: group)
        try closeTemporary(fd, temporary: temporary, failure: failure)
        try commit(temporary, to: path, durable: durable)
    }

    /// `write` for content made a piece at a time: `pieces` hands each piece to the writer it is given, so a large
    /// file (a city's missing list) is never whole in memory. Whatever `pieces` throws leaves the old file.
    public static func write(to path: String, permissions: mode_t = 0o644, group: gid_t? = nil, durable: Bool = true,
                             pieces: (_ write: (Data) throws(AtomicFileError) -> Void) throws -> Void) throws {
        let (fd, temporary) = try openTemporary(for: path, permissions: permissions)
        do {
            try pieces { piece throws(AtomicFileError) in
                if let failure = writeAll(piece, to: fd, temporary: temporary) { throw failure }
            }
        } catch {
            Glibc.close(fd)
            unlink(temporary)
            throw error
        }
        try closeTemporary(fd, temporary: temporary, failure: finish(fd, temporary: temporary, permissions: permissions, group: group))
        try commit(temporary, to: path, durable: durable)
    }

    private static func openTemporary(for path: String, permissions: mode_t) throws(AtomicFileError) -> (Int32, String) {
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, permissions)
        guard fd >= 0 else { throw .cannotWrite(path: temporary, step: "open", errno: errno) }
        return (fd, temporary)
    }

    private static func writeAll(_ data: Data, to fd: Int32, temporary: String) -> AtomicFileError? {
        data.withUnsafeBytes { buffer -> AtomicFileError? in
            var offset = 0
            while offset < buffer.count, let base = buffer.baseAddress {
                let written = Glibc.write(fd, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return .cannotWrite(path: temporary, step: "write", errno: errno)
                }
                offset += written
            }
            return nil
        }
    }

    /// The written file's mode (exactly, not through the umask) and group.
    private static func finish(_ fd: Int32, temporary: String, permissions: mode_t, group: gid_t?) -> AtomicFileError? {
        if fchmod(fd, permissions) != 0 { return .cannotWrite(path: temporary, step: "chmod", errno: errno) }
        if let group, fchown(fd, uid_t.max, group) != 0 { return .cannotWrite(path: temporary, step: "chown", errno: errno) }
        return nil
    }

    private static func closeTemporary(_ fd: Int32, temporary: String, failure: AtomicFileError?) throws(AtomicFileError) {
        Glibc.close(fd)
        if let failure {
            unlink(temporary)
            throw failure
        }
    }

    /// Removes the temporary files a process killed mid-write (a power cut) left beside `path`, other
    /// than this process's own; they hold nothing the old file or the new one does not. Returns their names.
    @discardableResult
    public static func removeLeftovers(of path: String) -> [String] {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[..<$0]) } ?? "."
        let prefix = String(slash.map { path[path.index(after: $0)...] } ?? path[...]) + ".tmp-"
        let own = prefix + "\(getpid())"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.isEmpty ? "/" : directory)) ?? []
        let leftovers = names.filter { $0.hasPrefix(prefix) && $0 != own }
        for name in leftovers { unlink((directory.isEmpty ? "" : directory) + "/" + name) }
        return leftovers
    }

    /// Makes a fully written `temporary` file the new `path`: rename it over `path`, with an fsync of
    /// the file before and of the directory after when `durable`. For files others write too
    /// (SQLite's `VACUUM INTO`).
    public static func commit(_ temporary: String, to path: String, durable: Bool = true) throws(AtomicFileError) {
        if durable {
            let fd = open(temporary, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw .cannotWrite(path: temporary, step: "open", errno: errno) }
            let synced = fsync(fd) == 0
            let code = errno
            close(fd)
            guard synced else {
                unlink(temporary)
                throw .cannotWrite(path: temporary, step: "fsync", errno: code)
            }
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw .cannotWrite(path: path, step: "rename", errno: code)
        }
        guard durable else { return }
        let directory = path.lastIndex(of: "/").map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? ""
        let dirfd = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dirfd >= 0 else { throw .cannotWrite(path: directory, step: "open directory", errno: errno) }
        defer { close(dirfd) }
        guard fsync(dirfd) == 0 else { throw .cannotWrite(path: directory, step: "fsync directory", errno: errno) }
    }
}
