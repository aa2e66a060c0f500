import Beacon
import Proximity
import Regions
import Registry
import Testing
import Tracking

struct BeaconTrackerTests {
    static let stolen = BeaconID("494E5445-4C4C-495F-524F-434B535F4857:20597:62207")!
    static let stranger = BeaconID("426C7565-4368-6172-6D42-6561636F6E73:3838:4949")!
    static let mine = BeaconID("B5B182C7-EAB1-4988-AA99-B5C1517008D9:1:25626")!
    static let trek = BikeDescription(make: "Trek", model: "FX 3", colour: "black")

    func ad(_ beacon: BeaconID, _ time: Double, rssi: Int = -60) -> Advertisement {
        Advertisement(beacon: beacon, rssi: rssi, measuredPower: -59, address: nil, time: time)
    }

    func tracker() -> BeaconTracker {
        BeaconTracker(
            ownRegions: [Region(name: "garage", beacon: Self.mine, requiredZone: .near)],
            registry: MissingRegistry(version: 1, bikes: [MissingBike(beacon: Self.stolen, description: Self.trek)])
        )
    }

    @Test func missingBikeArrivesThenDepartsWithItsDescription() {
        var t = tracker()
        var events: [TrackerEvent] = []
        for second in 0..<30 { events += t.observe(ad(Self.stolen, Double(second))) + t.tick(at: Double(second) + 0.5) }
        for second in 30..<60 { events += t.tick(at: Double(second)) }
        let kinds = events.map { event -> String in
            switch event.region {
            case .entered: "entered"
            case .exited: "exited"
            case .stillInside: "inside"
            }
        }
        #expect(kinds.first == "entered")
        #expect(kinds.filter { $0 == "exited" }.count == 1)
        #expect(events.allSatisfy { $0.subject == .missing(Self.trek) })
        if case let .exited(_, _, time, lastSeen) = events.last?.region {
            #expect(lastSeen == 29)
            #expect(time - lastSeen <= 15, "a tag heard every second leaves within its absence timeout")
        } else {
            Issue.record("the last event must be the departure")
        }
    }

    @Test func strangersCostNoState() {
        var t = tracker()
        for second in 0..<20 { #expect(t.observe(ad(Self.stranger, Double(second))).isEmpty) }
        #expect(t.trackedBeaconCount == 0)
    }

    @Test func ownBikeLeavingTheGarageIsAnOwnExit() {
        var t = tracker()
        var events: [TrackerEvent] = []
        for second in 0..<20 { events += t.observe(ad(Self.mine, Double(second), rssi: -60)) }
        for second in 20..<60 { events += t.tick(at: Double(second)) }
        let own = events.filter { $0.subject == .own }
        #expect(own.count == 2)
        if case .exited = own.last?.region {} else { Issue.record("the bike must leave the garage region") }
    }

    @Test func recoveredBikeProducesNoMoreEvents() {
        var t = tracker()
        var events: [TrackerEvent] = []
        for second in 0..<5 { events += t.observe(ad(Self.stolen, Double(second))) }
        #expect(events.count == 1)
        t.updateRegistry(MissingRegistry(version: 2))
        var after: [TrackerEvent] = []
        for second in 5..<200 { after += t.observe(ad(Self.stolen, Double(second))) + t.tick(at: Double(second)) }
        #expect(after.isEmpty)
    }

    @Test func unheardBeaconsAreForgotten() {
        var t = BeaconTracker(configuration: TrackerConfiguration(trackAll: true))
        for i in 0..<500 {
            _ = t.observe(ad(BeaconID(uuid: Self.stranger.uuid, major: 1, minor: UInt16(i)), 0))
        }
        #expect(t.trackedBeaconCount == 500)
        _ = t.tick(at: 200)
        #expect(t.trackedBeaconCount == 500, "not forgotten before the forget period")
        _ = t.tick(at: 301)
        #expect(t.trackedBeaconCount == 0)
    }
}
