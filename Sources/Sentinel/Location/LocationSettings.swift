/// Where the sentinel's sightings are placed: at the place the server enrolled it (`fixed`, a
/// garage, a cafe), or, for a sentinel that moves (a van, a bus), at the fix gpsd gives when the
/// bike was heard.
public struct LocationSettings: Equatable, Sendable {
    public enum Source: Equatable, Sendable {
        case fixed
        case gpsd(host: String, port: Int)
        /// A recorded gpsd session played on a replayed capture's clock (the demo); not from a config file.
        case recorded(RecordedTrack)
    }

    public var source: Source = .fixed
    /// A fix older than this (seconds, by when it arrived) is no position: the sighting says `fix: none`.
    public var maxFixAge: Double = 10
    /// While moving, at most one `passing` sighting per bike per this many seconds.
    public var passInterval: Double = 300

    public init(source: Source = .fixed, maxFixAge: Double = 10, passInterval: Double = 300) {
        self.source = source
        self.maxFixAge = maxFixAge
        self.passInterval = passInterval
    }

    public var isRoaming: Bool { source != .fixed }

    /// `location:` in the YAML: the word `fixed`, or a mapping with `gpsd:` and the intervals.
    struct File: Decodable {
        struct GPSD: Decodable { var host: String?; var port: Int? }
        var gpsd: GPSD?
        var maxFixAge: Double?
        var passInterval: Double?
        var fixed = false

        enum CodingKeys: String, CodingKey { case gpsd, maxFixAge, passInterval }

        init(from decoder: any Decoder) throws {
            if let word = try? decoder.singleValueContainer().decode(String.self) {
                guard word == "fixed" else {
                    throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "unknown location"))
                }
                fixed = true
                return
            }
            let c = try decoder.container(keyedBy: CodingKeys.self)
            gpsd = try c.decodeIfPresent(GPSD.self, forKey: .gpsd)
            maxFixAge = try c.decodeIfPresent(Double.self, forKey: .maxFixAge)
            passInterval = try c.decodeIfPresent(Double.self, forKey: .passInterval)
        }
    }

    init(file: File) {
        if let gpsd = file.gpsd { source = .gpsd(host: gpsd.host ?? "127.0.0.1", port: gpsd.port ?? 2947) }
        maxFixAge = file.maxFixAge ?? 10
        passInterval = file.passInterval ?? 300
    }

    func validate() throws {
        if case let .gpsd(host, port) = source {
            guard !host.isEmpty else { throw ConfigurationError.invalid("location.gpsd.host must name gpsd's host (127.0.0.1 when it runs here)") }
            guard (1...65535).contains(port) else { throw ConfigurationError.invalid("location.gpsd.port must be 1…65535 (gpsd's is 2947)") }
        }
        guard maxFixAge.isFinite, (0.5...3600).contains(maxFixAge) else {
            throw ConfigurationError.invalid("location.maxFixAge must be 0.5…3600 seconds")
        }
        guard passInterval.isFinite, passInterval >= 1 else { throw ConfigurationError.invalid("location.passInterval must be at least 1 second") }
    }
}
