import Foundation
import Testing
@testable import Sentinel

/// The roaming sentinel's own position for Home Assistant (`mqtt.publishLocation: true`): the GPS
/// tracker's attributes from the fix, never retained, nothing without a fix or without a change.
@Suite struct MQTTLocationTests {
    static let topics = MQTTTopics(prefix: "bikebeacon", node: "bus12", discovery: "homeassistant")

    @Test func theFixAsHomeAssistantGPSAttributes() throws {
        var location = MQTTLocation(topics: Self.topics)
        #expect(location.step(.noFix) == nil)
        let fix = SightingFix(latitude: -27.21081, longitude: 153.052155, accuracy: 12.5, time: 1_175_925_187.801)
        let first = location.step(.fix(fix))
        let message = try #require(first)
        #expect(message.topic == "bikebeacon/bus12/location" && !message.retain)
        let attributes = try #require(try JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Double])
        #expect(attributes == ["latitude": -27.21081, "longitude": 153.052155, "gps_accuracy": 12.5])
        // Standing still sends nothing new; moving does.
        #expect(location.step(.fix(fix)) == nil)
        var moved = fix
        moved.latitude = -27.2109
        #expect(location.step(.fix(moved)) != nil)
    }
}
