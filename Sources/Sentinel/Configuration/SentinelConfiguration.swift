import Beacon
import BikebeaconAPI
import Durable
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Proximity
import StrictYAML

public enum ConfigurationError: Error, CustomStringConvertible, Sendable {
    case unreadable(path: String, reason: String)
    case invalid(String)
    /// A key or value in the file, with its line when the YAML gives one.
    case at(line: Int?, key: String, problem: String)

    public var description: String {
        switch self {
        case let .unreadable(path, reason): "cannot read the config file \(path): \(reason)"
        case let .invalid(message): "invalid configuration: \(message)"
        case let .at(line, key, problem):
            "invalid configuration\(line.map { " at line \($0)" } ?? ""): '\(key)': \(problem)"
        }
    }
}

/// Everything a sentinel needs, from a YAML file, overridden by `BIKEBEACON_*` environment
/// variables, overridden by command-line options (the command applies those last).
public struct SentinelConfiguration: Equatable, Sendable {
    public enum Backend: String, Codable, Sendable, CaseIterable { case dbus, hci }

    public var serverURL: String
    public var token: String
    /// Holds the outbox and the saved missing list (and the status files, unless `statusDirectory`).
    public var stateDirectory: String
    /// Where `status.json` and `metrics.prom` go, rewritten every few seconds: a tmpfs (the unit's
    /// `/run/bikebeacon`) spares an SD card. Nil: the state directory.
    public var statusDirectory: String?
    public var backend: Backend = .dbus
    public var adapter: String?
    /// D-Bus backend: when discovery stays refused while nobody discovers (a dead bluetoothd's
    /// discovery still runs in the kernel), power the adapter off and on to end it.
    public var resetsStuckDiscovery = true
    /// D-Bus backend: when bluetoothd crashed and systemd does not restart it, ask D-Bus to start it.
    public var startsBluetoothd = true
    /// Seconds between missing-list refreshes (jittered ±10 %); the sentinel refreshes at least once a
    /// minute regardless, since the refresh carries its heartbeat (`HeartbeatMeter.interval`).
    public var listRefreshInterval: Double = 300
    /// Shortest time between `present` reports of one visit, seconds.
    public var presentInterval: Double = 300
    public var outboxMaxRows: Int = 10_000
    public var batchSize: Int = 100
    /// Longest wait for one server request, seconds.
    public var requestTimeout: Double = 10
    public var ownBikes: [OwnBike] = []
    /// Serve Prometheus metrics on `metricsHost:metricsPort`; nil: no listener (status.json and
    /// metrics.prom in the state directory are written regardless).
    public var metricsPort: Int?
    public var metricsHost = "127.0.0.1"
    public var alarmWebhook: String?
    /// Program and arguments run with the alarm JSON on stdin.
    public var alarmCommand: [String]?
    /// Publish presence to an MQTT broker (Home Assistant, ESPresense); nil: no MQTT.
    public var mqtt: MQTTSettings?
    /// Where sightings are placed: the enrolled place, or gpsd's fix (a roaming sentinel).
    public var location = LocationSettings()
    /// The estimator's settings, with this site's `calibration:` (receiver offset and path-loss
    /// exponent measured with `bikebeacon calibrate`) applied: the zones, distances and MQTT
    /// distance of every beacon this sentinel hears rest on them.
    public var proximity = ProximityConfiguration()
    /// Whether `calibration:` set this site's path-loss exponent (else the default, chosen on
    /// public datasets, places the zone boundaries).
    public var pathLossCalibrated = false
    /// Whether `calibration:` set this receiver's offset (`rxOffset`, measured against a tag's advertised power).
    public var receiverCalibrated = false

    public init(serverURL: String, token: String, stateDirectory: String) {
        self.serverURL = serverURL
        self.token = token
        self.stateDirectory = stateDirectory
    }

    /// The file's shape (every key optional; absent keys take defaults).
    struct File: Decodable {
        struct Server: Decodable { var url: String?; var token: String?; var timeout: Double? }
        struct Scanner: Decodable { var backend: Backend?; var adapter: String?; var resetStuckDiscovery: Bool?; var startBluetoothd: Bool? }
        struct Intervals: Decodable { var listRefresh: Double?; var present: Double? }
        struct OutboxSettings: Decodable { var maxRows: Int?; var batchSize: Int? }
        struct Bike: Decodable { var name: String; var beacon: String; var zone: Zone? }
        struct Alarm: Decodable { var webhook: String?; var command: [String]? }
        struct Metrics: Decodable { var host: String?; var port: Int? }
        struct Calibration: Decodable { var rxOffset: Double?; var pathLossExponent: Double? }
        struct MQTT: Decodable {
            var url: String; var prefix: String?; var discovery: String?; var espresense: Bool?; var name: String?; var caFile: String?
            var publishLocation: Bool?
        }
        var server: Server?
        var stateDirectory: String?
        var statusDirectory: String?
        var scanner: Scanner?
        var intervals: Intervals?
        var outbox: OutboxSettings?
        var ownBikes: [Bike]?
        var alarm: Alarm?
        var metrics: Metrics?
        var mqtt: MQTT?
        var location: LocationSettings.File?
        var calibration: Calibration?
    }

    /// Reads `yaml` and applies `environment` on top.
    public static func parse(yaml: String, environment: [String: String]) throws -> SentinelConfiguration {
        let file = try decodeStrictly(yaml)
        var c = SentinelConfiguration(serverURL: file.server?.url ?? "", token: file.server?.token ?? "",
                                      stateDirectory: file.stateDirectory ?? "/var/lib/bikebeacon")
        c.statusDirectory = file.statusDirectory
        c.requestTimeout = file.server?.timeout ?? 10
        c.backend = file.scanner?.backend ?? .dbus
        c.adapter = file.scanner?.adapter
        c.resetsStuckDiscovery = file.scanner?.resetStuckDiscovery ?? true
        c.startsBluetoothd = file.scanner?.startBluetoothd ?? true
        c.listRefreshInterval = file.intervals?.listRefresh ?? 300
        c.presentInterval = file.intervals?.present ?? 300
        c.outboxMaxRows = file.outbox?.maxRows ?? 10_000
        c.batchSize = file.outbox?.batchSize ?? 100
        c.metricsPort = file.metrics?.port
        c.metricsHost = file.metrics?.host ?? "127.0.0.1"
        c.alarmWebhook = file.alarm?.webhook
        c.alarmCommand = file.alarm?.command
        c.ownBikes = try (file.ownBikes ?? []).map { bike in
            guard let beacon = BeaconID(bike.beacon) else {
                throw ConfigurationError.invalid("own bike '\(bike.name)': beacon '\(bike.beacon)' is not UUID:MAJOR:MINOR")
            }
            return OwnBike(name: bike.name, beacon: beacon, zone: bike.zone)
        }
        c.mqtt = file.mqtt.map(MQTTSettings.init(file:))
        c.location = file.location.map(LocationSettings.init(file:)) ?? LocationSettings()
        if let offset = file.calibration?.rxOffset {
            c.proximity.rxOffset = offset
            c.receiverCalibrated = true
        }
        if let exponent = file.calibration?.pathLossExponent {
            c.proximity.pathLossExponent = exponent
            c.pathLossCalibrated = true
        }
        if let v = environment["BIKEBEACON_MQTT_URL"] { c.mqtt = c.mqtt.map { $0.with(url: v) } ?? MQTTSettings(url: v) }
        if let v = environment["BIKEBEACON_SERVER_URL"] { c.serverURL = v }
        if let v = environment["BIKEBEACON_TOKEN"] { c.token = v }
        if let v = environment["BIKEBEACON_STATE_DIRECTORY"] { c.stateDirectory = v }
        if let v = environment["BIKEBEACON_STATUS_DIRECTORY"] { c.statusDirectory = v }
        if let v = environment["BIKEBEACON_ADAPTER"] { c.adapter = v }
        if let v = environment["BIKEBEACON_BACKEND"] {
            guard let backend = Backend(rawValue: v) else { throw ConfigurationError.invalid("BIKEBEACON_BACKEND must be dbus or hci, not '\(v)'") }
            c.backend = backend
        }
        return c
    }

    /// Decodes the file, refusing keys the schema does not know and naming the line of any bad value.
    static func decodeStrictly(_ yaml: String) throws -> File {
        let root: YAMLNode
        do {
            root = try YAMLReader.parse(yaml) ?? YAMLNode(.mapping([]), line: 1)
        } catch {
            throw ConfigurationError.at(line: error.line, key: "(file)", problem: "not the YAML a config file holds: \(error.message)")
        }
        guard root.mapping != nil else {
            throw ConfigurationError.at(line: root.line, key: "(top level)", problem: "must be a mapping of keys such as server:, ownBikes:")
        }
        try ConfigurationSchema.sentinelFile.check(root)
        do {
            return try YAMLNodeDecoder().decode(File.self, from: root)
        } catch let error as DecodingError {
            throw located(error, in: root)
        }
    }

    private static func located(_ error: DecodingError, in root: YAMLNode) -> ConfigurationError {
        let (path, problem): ([any CodingKey], String) = switch error {
        case let .typeMismatch(type, context): (context.codingPath, "expected \(describe(type))")
        case let .valueNotFound(type, context): (context.codingPath, "expected \(describe(type)), found nothing")
        case let .keyNotFound(key, context): (context.codingPath + [key], "is required here")
        case let .dataCorrupted(context):
            (context.codingPath, choices[context.codingPath.last?.stringValue ?? ""].map { "expected one of \($0)" } ?? context.debugDescription)
        @unknown default: ([], "\(error)")
        }
        let node = ConfigurationSchema.node(at: path, in: root)
        let found = node?.scalar.map { ", found '\($0.text)'" } ?? ""
        let key = path.reduce("") { text, part in
            if let index = part.intValue { return text + "[\(index)]" }
            return text.isEmpty ? part.stringValue : text + "." + part.stringValue
        }
        return .at(line: node?.line, key: key.isEmpty ? "(top level)" : key, problem: problem + found)
    }

    /// The values an enumerated key accepts, for the error when it holds another.
    private static let choices = [
        "backend": Backend.allCases.map(\.rawValue).joined(separator: ", "),
        "zone": Zone.allCases.map(\.rawValue).joined(separator: ", "),
        "location": "fixed, or a mapping with gpsd: {host, port}",
    ]

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is Double.Type, is Int.Type: "a number"
        case is String.Type: "text"
        case is Bool.Type: "true or false"
        default: "a value of type \(type)"
        }
    }

    public static func load(path: String, environment: [String: String]) throws -> SentinelConfiguration {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigurationError.unreadable(path: path, reason: IOErrorText.describe(error))
        }
        return try parse(yaml: text, environment: environment)
    }

    /// Checks what the file cannot express by type alone; call after all overrides.
    public func validate() throws {
        guard let url = URL(string: serverURL), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil else {
            throw ConfigurationError.invalid("server url '\(serverURL)' must be an http(s) URL (server.url, BIKEBEACON_SERVER_URL or --server-url)")
        }
        guard !token.isEmpty else {
            throw ConfigurationError.invalid("no sentinel token (server.token, BIKEBEACON_TOKEN or --token); get one with `bikebeacon-server sentinels add`")
        }
        guard requestTimeout > 0, requestTimeout <= 3600 else { throw ConfigurationError.invalid("server.timeout must be 0…3600 seconds") }
        guard listRefreshInterval >= 1, presentInterval >= 1 else { throw ConfigurationError.invalid("intervals must be at least 1 second") }
        guard outboxMaxRows >= 1, (1...500).contains(batchSize) else {
            throw ConfigurationError.invalid("outbox.maxRows must be positive and outbox.batchSize 1…500")
        }
        if let alarmWebhook, URL(string: alarmWebhook)?.scheme.map({ ["http", "https"].contains($0) }) != true {
            throw ConfigurationError.invalid("alarm.webhook '\(alarmWebhook)' must be an http(s) URL")
        }
        if let metricsPort, !(1...65535).contains(metricsPort) { throw ConfigurationError.invalid("metrics.port must be 1…65535") }
        if let alarmCommand, alarmCommand.isEmpty { throw ConfigurationError.invalid("alarm.command must name a program") }
        guard proximity.rxOffset.isFinite, abs(proximity.rxOffset) <= 40 else {
            throw ConfigurationError.invalid("calibration.rxOffset must be -40…40 dB (measure it with `bikebeacon calibrate --save sentinel`)")
        }
        guard proximity.pathLossExponent.isFinite, (0.5...6).contains(proximity.pathLossExponent) else {
            throw ConfigurationError.invalid("calibration.pathLossExponent must be 0.5…6 (2 in free space; measure it with `bikebeacon calibrate --save sentinel`)")
        }
        try mqtt?.validate(bikes: ownBikes)
        try location.validate()
        if mqtt?.publishLocation == true, !location.isRoaming {
            throw ConfigurationError.invalid("mqtt.publishLocation needs a position to publish: set location to gpsd, or remove publishLocation")
        }
    }
}

extension SentinelConfiguration {
    /// What the heartbeat tells the server of the model behind this sentinel's distances (#44): a site calibration
    /// starts with the receiver's offset (`bikebeacon calibrate --save sentinel` always prints it), so an exponent
    /// set without one still leaves the levels as read, and claims nothing.
    public var pathLoss: SentinelPathLoss {
        SentinelPathLoss(calibration: !receiverCalibrated ? .none : pathLossCalibrated ? .twoPoint : .onePoint,
                         exponent: proximity.pathLossExponent, nearFieldExponent: proximity.nearFieldPathLossExponent)
    }
}
