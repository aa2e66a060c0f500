import Beacon
import Foundation
import Testing
@testable import Sentinel

@Suite struct SightingWireTests {
    @Test func encodesTheFieldsOfPostSightings() throws {
        let id = try #require(UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF"))
        let sighting = Sighting(id: id, beacon: TestValues.intel, event: .departed, time: 1_763_762_025.5,
                                firstSeen: 1_763_762_000, lastSeen: 1_763_762_010.25, rssi: -71, distance: 2.5, zone: .near)
        let object = try #require(JSONSerialization.jsonObject(with: JSONEncoder().encode(sighting)) as? [String: Any])
        #expect(Set(object.keys) == ["id", "uuid", "major", "minor", "event", "time", "firstSeen", "lastSeen", "rssi", "distance", "zone"])
        #expect(object["id"] as? String == "6f9619ff-8b86-d011-b42d-00c04fc964ff")
        #expect(object["uuid"] as? String == "494E5445-4C4C-495F-524F-434B535F4857")
        #expect(object["major"] as? Int == 20597)
        #expect(object["minor"] as? Int == 62207)
        #expect(object["event"] as? String == "departed")
        #expect(object["time"] as? String == "2025-11-21T21:53:45.500Z")
        #expect(object["firstSeen"] as? String == "2025-11-21T21:53:20.000Z")
        #expect(object["lastSeen"] as? String == "2025-11-21T21:53:30.250Z")
        #expect(object["rssi"] as? Int == -71)
        #expect(object["distance"] as? Double == 2.5)
        #expect(object["zone"] as? String == "near")
    }

    @Test func unknownDistanceIsNull() throws {
        var sighting = TestValues.sighting(.present)
        sighting.distance = nil
        let text = String(decoding: try JSONEncoder().encode(sighting), as: UTF8.self)
        #expect(text.contains("\"distance\":null"))
    }

    @Test func roundTripsAtMillisecondPrecision() throws {
        let sighting = Sighting(id: UUID(), beacon: TestValues.blueCharm, event: .arrived, time: 1_763_762_001.125,
                                firstSeen: 1_763_762_000.5, lastSeen: 1_763_762_001, rssi: -60, distance: nil, zone: .immediate)
        let decoded = try JSONDecoder().decode(Sighting.self, from: JSONEncoder().encode(sighting))
        #expect(decoded == sighting)
    }

    @Test(arguments: [1_706_388_995.007, 1_706_388_995.0005, 1_706_388_995.999_6, 0.001])
    func formattingIsStableThroughParsing(time: Double) throws {
        let text = RFC3339.format(time)
        let again = RFC3339.format(try #require(RFC3339.parse(text)))
        #expect(again == text)
        #expect(abs(try #require(RFC3339.parse(text)) - time) <= 0.000_5 + 1e-9)
    }

    @Test func rejectsATimeThatIsNotRFC3339() throws {
        let json = #"{"id":"6f9619ff-8b86-d011-b42d-00c04fc964ff","uuid":"494E5445-4C4C-495F-524F-434B535F4857","major":1,"minor":2,"event":"present","time":"yesterday","firstSeen":"2025-11-21T21:53:20.000Z","lastSeen":"2025-11-21T21:53:20.000Z","rssi":-70,"distance":null,"zone":"far"}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Sighting.self, from: Data(json.utf8)) }
    }
}
