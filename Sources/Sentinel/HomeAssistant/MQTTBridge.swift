import Durable
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import MQTT
import Regions

/// The sentinel's MQTT edge: the client with its last will, Home Assistant discovery published
/// once at start, and the memory (in the state directory) of which retained topics this
/// sentinel owns, so a bike taken out of the config has its entities removed.
struct MQTTBridge: Sendable {
    static let memoryFileName = "mqtt-retained.json"

    let client: MQTTClient
    let topics: MQTTTopics
    let settings: MQTTSettings
    let bikes: [OwnBike]
    /// The device's link in Home Assistant: the server's dashboard, where the owner manages bikes.
    let configurationURL: String?
    let memoryPath: String
    let logger: Logger

    /// What the state directory remembers: the retained topics last published.
    struct Memory: Codable { var topics: [String] }

    init(settings: MQTTSettings, bikes: [OwnBike], configurationURL: String?, stateDirectory: String, logger: Logger) throws {
        guard let broker = settings.broker else { throw ConfigurationError.invalid("mqtt.url '\(MQTTBrokerAddress.redacted(settings.url))' is not an MQTT URL") }
        let topics = MQTTTopics(prefix: settings.prefix, node: settings.name, discovery: settings.discovery)
        let backoff = Backoff(initial: 1, maximum: 60)
        var configuration = MQTTClientConfiguration(broker: broker, clientID: "bikebeacon-\(settings.name)") { failures in
            backoff.delay(afterFailures: failures, random: Double.random(in: 0..<1)) ?? backoff.maximum
        }
        configuration.trustRootsFile = settings.caFile
        configuration.will = MQTTMessage(topic: topics.status, text: "offline", retain: true)
        configuration.birth = [MQTTMessage(topic: topics.status, text: "online", retain: true)]
        configuration.farewell = [MQTTMessage(topic: topics.status, text: "offline", qos: .atMostOnce, retain: true)]
        if settings.espresense {
            let room = MQTTTopics.espresenseRoomStatus(room: settings.name)
            configuration.birth.append(MQTTMessage(topic: room, text: "online", retain: true))
            configuration.farewell.append(MQTTMessage(topic: room, text: "offline", qos: .atMostOnce, retain: true))
        }
        client = MQTTClient(configuration: configuration, logger: logger)
        self.topics = topics
        self.settings = settings
        self.bikes = bikes
        self.configurationURL = configurationURL
        memoryPath = stateDirectory + "/" + Self.memoryFileName
        self.logger = logger
    }

    /// The pure publishing logic for the scan loop. A bike unheard for the cold-start absence
    /// timeout after start is `not_home`: the same bound the region monitor uses for an exit.
    func presence() -> MQTTPresence {
        MQTTPresence(configuration: .init(topics: topics, espresense: settings.espresense,
                                          grace: RegionMonitorConfiguration().coldStartAbsenceTimeout), bikes: bikes)
    }

    /// Keeps the connection until cancelled; publishes discovery first.
    func run() async {
        async let connection: Void = client.run()
        await announce()
        await connection
    }

    /// Discovery configs, and empty retained messages for what a previous configuration
    /// published and this one does not; remembered once the broker has them all.
    private func announce() async {
        let current = HomeAssistantDiscovery.retainedTopics(topics: topics, bikes: bikes, publishLocation: settings.publishLocation)
        let previous = loadMemory()
        let removals = HomeAssistantDiscovery.removals(topics: topics, previous: previous, current: current)
        if !removals.entities.isEmpty || !removals.states.isEmpty {
            logger.info("removing retained MQTT topics of bikes no longer configured",
                        metadata: ["topics": "\(removals.entities.count + removals.states.count)"])
        }
        await client.publish(removals.entities + HomeAssistantDiscovery.configs(topics: topics, bikes: bikes, publishLocation: settings.publishLocation,
                                                                                       configurationURL: configurationURL))
        if !removals.states.isEmpty {
            guard await flushed() else { return }
            await client.publish(removals.states)
        }
        guard await flushed() else { return }
        do {
            try AtomicFile.write(try JSONEncoder().encode(Memory(topics: current.sorted())), to: memoryPath)
        } catch {
            logger.warning("cannot remember the published MQTT topics; a bike removed later may keep its Home Assistant entities",
                           metadata: ["path": "\(memoryPath)", "error": "\(error)"])
        }
    }

    /// Waits until the broker has everything published so far; false once cancelled.
    private func flushed() async -> Bool {
        while !Task.isCancelled {
            if await client.flush(timeout: .seconds(60), poll: .seconds(1)) { return true }
        }
        return false
    }

    private func loadMemory() -> Set<String> {
        guard let data = FileManager.default.contents(atPath: memoryPath) else { return [] }
        guard let memory = try? JSONDecoder().decode(Memory.self, from: data) else {
            logger.warning("the memory of published MQTT topics is unreadable; starting afresh", metadata: ["path": "\(memoryPath)"])
            return []
        }
        return Set(memory.topics)
    }
}
