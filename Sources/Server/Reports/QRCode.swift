#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A QR code's modules, row by row, `true` for dark; drawn as SVG for the theft report.
struct QRMatrix: Sendable, Equatable {
    var size: Int
    var modules: [Bool]

    func isDark(row: Int, column: Int) -> Bool { modules[row * size + column] }

    /// One path of unit squares, with the four-module quiet zone scanners need; scales to any size.
    func svg(title: String) -> String {
        let quiet = 4
        var path = ""
        for row in 0..<size {
            for column in 0..<size where isDark(row: row, column: column) {
                path += "M\(column + quiet) \(row + quiet)h1v1h-1z"
            }
        }
        let side = size + 2 * quiet
        return """
            <svg class="qr" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(side) \(side)" shape-rendering="crispEdges" role="img" aria-label="\(HTML.escape(title))">\
            <rect width="\(side)" height="\(side)" fill="#fff"/><path d="\(path)" fill="#000"/></svg>
            """
    }
}

/// Debian's libqrencode, loaded on first use rather than linked (as `CDBus` loads libdbus): the
/// server starts and serves everything else on a host without it, and the report says what to install.
enum QREncoder {
    enum Failure: Error, CustomStringConvertible {
        case unavailable(String)
        case encoding(String)

        var description: String {
            switch self {
            case .unavailable(let why): "the QR code library is missing (\(why)): install Debian's libqrencode4"
            case .encoding(let text): "libqrencode could not encode \(text.count) characters"
            }
        }
    }

    private typealias Encode = @convention(c) (UnsafePointer<CChar>, Int32, Int32) -> UnsafeMutableRawPointer?
    private typealias Free = @convention(c) (UnsafeMutableRawPointer?) -> Void
    private struct Library: @unchecked Sendable {
        var encode: Encode
        var free: Free
    }

    /// Loaded once; the error kept so every request reports the same reason.
    private static let library: Result<Library, Failure> = {
        guard let handle = dlopen("libqrencode.so.4", RTLD_NOW | RTLD_LOCAL) else {
            return .failure(.unavailable(String(cString: dlerror())))
        }
        guard let encode = dlsym(handle, "QRcode_encodeString8bit"), let free = dlsym(handle, "QRcode_free") else {
            return .failure(.unavailable("libqrencode.so.4 lacks QRcode_encodeString8bit"))
        }
        return .success(Library(encode: unsafeBitCast(encode, to: Encode.self), free: unsafeBitCast(free, to: Free.self)))
    }()
    /// libqrencode's encoder keeps internal state that is not thread-safe across calls in older releases.
    private static let lock = Mutex(())

    /// Error correction M (15 %): a printed report survives a crease or a stain.
    static func encode(_ text: String) throws(Failure) -> QRMatrix {
        let library = try library.get()
        let levelM: Int32 = 1
        let matrix: QRMatrix? = lock.withLock { _ in
            guard let code = text.withCString({ library.encode($0, 0, levelM) }) else { return nil }
            defer { library.free(code) }
            // struct QRcode { int version; int width; unsigned char *data; }; bit 0 of each byte is dark.
            let width = Int(code.load(fromByteOffset: 4, as: Int32.self))
            guard width > 0, let data = code.load(fromByteOffset: 8, as: UnsafePointer<UInt8>?.self) else { return nil }
            return QRMatrix(size: width, modules: (0..<(width * width)).map { data[$0] & 1 == 1 })
        }
        guard let matrix else { throw .encoding(text) }
        return matrix
    }
}
