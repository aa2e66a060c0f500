import Testing
@testable import Sentinel

/// The `mqtt:` section, `BIKEBEACON_MQTT_URL` and the checks an operator gets told about.
@Suite struct MQTTConfigurationTests {
    static let base = """
    server: {url: "http://127.0.0.1:8080", token: t}

    """

    @Test func theSectionWithItsDefaults() throws {
        let c = try SentinelConfiguration.parse(yaml: Self.base + "mqtt: {url: \"mqtt://u:p%40ss@broker.lan\"}", environment: [:])
        let mqtt = try #require(c.mqtt)
        #expect(mqtt.prefix == "bikebeacon" && mqtt.discovery == "homeassistant" && !mqtt.espresense && !mqtt.name.isEmpty)
        #expect(!mqtt.publishLocation)
        let broker = try #require(mqtt.broker)
        #expect(broker.host == "broker.lan" && broker.port == 1883 && !broker.tls && broker.username == "u" && broker.password == "p@ss")
        #expect("\(broker)" == "mqtt://u@broker.lan:1883")
        try c.validate()
    }

    @Test func everyKeyAndTheEnvironment() throws {
        let yaml = Self.base + """
        mqtt: {url: "mqtt://a:1", prefix: bb, discovery: ha, espresense: true, name: shed, caFile: /etc/ca.pem}
        """
        let c = try SentinelConfiguration.parse(yaml: yaml, environment: ["BIKEBEACON_MQTT_URL": "mqtts://b"])
        let mqtt = try #require(c.mqtt)
        #expect(mqtt.url == "mqtts://b" && mqtt.prefix == "bb" && mqtt.discovery == "ha" && mqtt.espresense && mqtt.name == "shed")
        #expect(mqtt.caFile == "/etc/ca.pem" && mqtt.broker?.port == 8883 && mqtt.broker?.tls == true)
        let roaming = try SentinelConfiguration.parse(yaml: Self.base + "location: {gpsd: {}}\nmqtt: {url: \"mqtt://a\", publishLocation: true}",
                                                      environment: [:])
        #expect(roaming.mqtt?.publishLocation == true)
        try roaming.validate()
        #expect(try SentinelConfiguration.parse(yaml: Self.base, environment: [:]).mqtt == nil)
        #expect(try SentinelConfiguration.parse(yaml: Self.base, environment: ["BIKEBEACON_MQTT_URL": "mqtt://c"]).mqtt?.url == "mqtt://c")
    }

    @Test(arguments: [
        ("mqtt: {url: \"http://u:secret@broker\"}", "must be mqtt://"),
        ("mqtt: {url: \"mqtt://broker\", prefix: \"a/b\"}", "mqtt.prefix"),
        ("mqtt: {url: \"mqtt://broker\", name: \"shed+1\"}", "mqtt.name"),
        ("mqtt: {url: \"mqtt://broker\", discovery: \"home#\"}", "mqtt.discovery"),
        ("mqtt: {url: \"mqtt://broker\", publishLocation: true}", "mqtt.publishLocation needs a position"),
        ("mqtt: {url: \"mqtt://broker\"}\nownBikes: [{name: \"Kid's bike\", beacon: \"\(TestValues.intel)\"}, {name: \"kid s bike\", beacon: \"\(TestValues.other)\"}]",
         "would share MQTT topics"),
    ])
    func mistakesAreNamedWithoutThePassword(yaml: String, message: String) throws {
        let c = try SentinelConfiguration.parse(yaml: Self.base + yaml, environment: [:])
        #expect {
            try c.validate()
        } throws: { error in
            "\(error)".contains(message) && !"\(error)".contains("secret")
        }
    }
}
