import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Replaces a file's content all at once: a temporary file in the same directory, fsync'd,
/// then renamed over the target (rename is atomic within one file system).
enum AtomicFile {
    struct Failure: Error {
        var reason: String
    }

    static func write(_ data: Data, to path: String, permissions: mode_t) throws(Failure) {
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, permissions)
        guard fd >= 0 else { throw Failure(reason: String(cString: strerror(errno))) }
        var failure: String?
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count, let base = buffer.baseAddress {
                let written = Glibc.write(fd, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = String(cString: strerror(errno))
                    return
                }
                offset += written
            }
        }
        if failure == nil, fchmod(fd, permissions) != 0 || fsync(fd) != 0 { failure = String(cString: strerror(errno)) }
        close(fd)
        if failure == nil, rename(temporary, path) != 0 { failure = String(cString: strerror(errno)) }
        if let failure {
            unlink(temporary)
            throw Failure(reason: failure)
        }
    }
}
