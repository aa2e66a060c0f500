#if canImport(Glibc)
import Glibc
#endif

/// Free and total bytes of the file system holding a directory (what an unprivileged process may use).
public struct DiskSpace: Sendable, Equatable {
    public var freeBytes: Int64
    public var totalBytes: Int64

    public init(freeBytes: Int64, totalBytes: Int64) {
        self.freeBytes = freeBytes
        self.totalBytes = totalBytes
    }

    /// Nil when the directory cannot be examined.
    public static func of(_ directory: String) -> DiskSpace? {
        var info = statvfs()
        guard statvfs(directory, &info) == 0 else { return nil }
        let unit = Int64(info.f_frsize)
        return DiskSpace(freeBytes: Int64(info.f_bavail) * unit, totalBytes: Int64(info.f_blocks) * unit)
    }
}
