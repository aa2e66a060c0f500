import BikebeaconAPI
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// gpsd's time-position-velocity report (class `TPV`), the one report a sentinel reads: where the
/// receiver is, how sure it is, how fast it moves. Fields gpsd leaves out (no fix, a receiver that
/// does not give them) are nil.
public struct GPSDPosition: Equatable, Sendable {
    /// gpsd's fix mode: what the receiver has.
    public enum Mode: Int, Sendable, Comparable {
        case unknown = 0, noFix = 1, twoD = 2, threeD = 3

        public static func < (a: Mode, b: Mode) -> Bool { a.rawValue < b.rawValue }

        public var text: String {
            switch self {
            case .unknown: "unknown"
            case .noFix: "none"
            case .twoD: "2d"
            case .threeD: "3d"
            }
        }
    }

    public var mode: Mode
    /// The fix's own time (the receiver's clock, through gpsd), seconds since the Unix epoch.
    public var time: Double?
    public var latitude: Double?
    public var longitude: Double?
    /// Horizontal error estimate, metres (gpsd's `eph`, else the root sum of `epx` and `epy`).
    public var horizontalError: Double?
    /// Speed over ground, metres per second.
    public var speed: Double?

    public init(mode: Mode, time: Double? = nil, latitude: Double? = nil, longitude: Double? = nil,
                horizontalError: Double? = nil, speed: Double? = nil) {
        self.mode = mode
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.horizontalError = horizontalError
        self.speed = speed
    }

    /// A usable position: a 2D or 3D fix with both coordinates.
    public var hasPosition: Bool { mode >= .twoD && latitude != nil && longitude != nil }
}

/// One line from gpsd, decoded.
public enum GPSDReport: Equatable, Sendable {
    case position(GPSDPosition)
    /// Any other class (VERSION, DEVICES, WATCH, SKY, …): the client has no use for it.
    case other(class: String)
}

/// Why a line from gpsd was not a report: the client logs it and reads on.
public struct GPSDLineError: Error, Equatable, Sendable, CustomStringConvertible {
    public var reason: String

    public init(_ reason: String) { self.reason = reason }

    public var description: String { reason }
}

/// gpsd's JSON protocol, as much as a client that only watches positions needs: the command that
/// starts the watch, and a decoder for one report line. Pure; no I/O.
public enum GPSDProtocol {
    /// Turns on JSON reports for every device (gpsd answers VERSION, DEVICES, WATCH, then TPV, SKY…).
    public static let watchCommand = Array(#"?WATCH={"enable":true,"json":true}"#.utf8) + [UInt8(ascii: "\n")]

    /// Decodes one line (without its newline). A TPV with a value of the wrong type or out of
    /// range is an error, not a guess.
    public static func decode(_ line: some Collection<UInt8>) -> Result<GPSDReport, GPSDLineError> {
        let data = Data(line)
        let decoder = JSONDecoder()
        let head: Head
        do {
            head = try decoder.decode(Head.self, from: data)
        } catch {
            return .failure(GPSDLineError("not a JSON object with a \"class\""))
        }
        guard head.class == "TPV" else { return .success(.other(class: String(head.class.prefix(32)))) }
        let tpv: TPV
        do {
            tpv = try decoder.decode(TPV.self, from: data)
        } catch let DecodingError.typeMismatch(_, context) {
            return .failure(GPSDLineError("TPV field '\(context.codingPath.map(\.stringValue).joined(separator: "."))' has the wrong type"))
        } catch {
            return .failure(GPSDLineError("TPV report is not valid JSON"))
        }
        return tpv.position().map(GPSDReport.position)
    }

    struct Head: Decodable { var `class`: String }

    /// The TPV fields read; gpsd sends many more (altitude, climb, ECEF…), which are ignored.
    struct TPV: Decodable {
        var mode: Int?
        var time: String?
        var lat: Double?
        var lon: Double?
        var eph: Double?
        var epx: Double?
        var epy: Double?
        var speed: Double?

        func position() -> Result<GPSDPosition, GPSDLineError> {
            guard let mode = GPSDPosition.Mode(rawValue: mode ?? 0) else { return .failure(GPSDLineError("TPV mode must be 0…3")) }
            var position = GPSDPosition(mode: mode)
            if let time {
                guard let milliseconds = Timestamp.parse(time) else { return .failure(GPSDLineError("TPV time is not an ISO 8601 time")) }
                position.time = Double(milliseconds) / 1000
            }
            if let lat {
                guard lat.isFinite, (-90...90).contains(lat) else { return .failure(GPSDLineError("TPV lat must be -90…90")) }
                position.latitude = lat
            }
            if let lon {
                guard lon.isFinite, (-180...180).contains(lon) else { return .failure(GPSDLineError("TPV lon must be -180…180")) }
                position.longitude = lon
            }
            for (name, value) in [("eph", eph), ("epx", epx), ("epy", epy), ("speed", speed)] {
                if let value, !(value.isFinite && value >= 0) { return .failure(GPSDLineError("TPV \(name) must be a number ≥ 0")) }
            }
            if let eph {
                position.horizontalError = eph
            } else if let epx, let epy {
                position.horizontalError = (epx * epx + epy * epy).squareRoot()
            }
            position.speed = speed
            return .success(position)
        }
    }
}

/// Splits gpsd's byte stream into lines. A line longer than `maximumLength` (gpsd's own reports
/// stay under 10 KiB) is dropped up to its newline and counted, so a peer that never sends a
/// newline cannot grow memory. Pure.
public struct GPSDLineFramer: Sendable {
    public let maximumLength: Int
    private var buffer: [UInt8] = []
    private var discarding = false
    /// Lines dropped for length.
    public private(set) var overlong = 0

    public init(maximumLength: Int = 16 * 1024) {
        self.maximumLength = maximumLength
    }

    /// The complete lines in `bytes` after what came before, without newlines (and without a
    /// trailing carriage return); blank lines are skipped. Copies runs between newlines, not bytes
    /// one by one: a Pi reads a few kilobytes a second from gpsd, and this is all it does with them.
    public mutating func lines(_ bytes: some Collection<UInt8>) -> [[UInt8]] {
        let bytes = Array(bytes)
        var result: [[UInt8]] = []
        var start = 0
        while start < bytes.count {
            let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n"))
            let end = newline ?? bytes.count
            if !discarding {
                if buffer.count + (end - start) > maximumLength {
                    buffer.removeAll()
                    discarding = true
                    overlong += 1
                } else {
                    buffer.append(contentsOf: bytes[start..<end])
                }
            }
            guard newline != nil else { break }
            if !discarding {
                if buffer.last == UInt8(ascii: "\r") { buffer.removeLast() }
                if !buffer.isEmpty { result.append(buffer) }
            }
            buffer.removeAll(keepingCapacity: true)
            discarding = false
            start = end + 1
        }
        return result
    }
}
