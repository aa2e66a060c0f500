#if canImport(Glibc)
import Glibc
#endif

/// A capture file read in 256 KiB chunks: the I/O edge under the pure readers.
///
/// Each refill builds a fresh buffer instead of compacting in place, so slices handed out
/// earlier stay valid without copy-on-write copies.
public struct FileBytes: ByteSource {
    private let file: FileDescriptor
    private var buffer: [UInt8] = []
    private var index = 0
    private var atEnd = false
    static let chunk = 1 << 18

    /// Opens `path` for reading; the error says why not (missing, permission, a directory).
    public init(path: String) throws(CaptureError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        var info = stat()
        if fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            close(fd)
            throw .unreadable(path: path, reason: "it is a directory")
        }
        file = FileDescriptor(fd: fd, path: path)
    }

    public mutating func read(_ count: Int) throws(CaptureError) -> ArraySlice<UInt8> {
        if buffer.count - index < count, !atEnd { try refill(atLeast: count) }
        let end = index + min(count, buffer.count - index)
        defer { index = end }
        return buffer[index..<end]
    }

    private mutating func refill(atLeast count: Int) throws(CaptureError) {
        let kept = buffer[index...]
        let capacity = max(Self.chunk, count)
        var fresh = [UInt8](repeating: 0, count: capacity)
        fresh.replaceSubrange(0..<kept.count, with: kept)
        var filled = kept.count
        var failure: Int32 = 0
        fresh.withUnsafeMutableBytes { raw in
            guard let base = raw.baseAddress else { return }
            while filled < count || filled < Self.chunk / 2 {
                let n = Glibc.read(file.fd, base + filled, capacity - filled)
                if n > 0 { filled += n; continue }
                if n < 0, errno == EINTR { continue }
                if n < 0 { failure = errno }
                atEnd = true
                break
            }
        }
        guard failure == 0 else { throw .unreadable(path: file.path, reason: String(cString: strerror(failure))) }
        fresh.removeSubrange(filled...)
        buffer = fresh
        index = 0
    }
}

/// Closes the descriptor when the last copy of the reader goes away.
final class FileDescriptor: Sendable {
    let fd: Int32
    let path: String

    init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    deinit { close(fd) }
}
