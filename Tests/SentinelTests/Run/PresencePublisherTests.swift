import Beacon
import MQTT
import Synchronization
import Testing
@testable import Sentinel

/// Home Assistant's presence: what each step gives is published as it is, with the sentinel's stamp shift, and a
/// step that changes nothing publishes nothing.
@Suite struct PresencePublisherTests {
    final class Broker: Sendable {
        let published = Mutex<[[MQTTMessage]]>([])
    }

    @Test func eachStepsMessagesArePublishedOnceAndAQuietStepNotAtAll() async {
        let broker = Broker()
        var publisher = PresencePublisher(presence: MQTTPresenceTests.presence(espresense: true)) { messages in
            broker.published.withLock { $0.append(messages) }
        }
        var bare = MQTTPresenceTests.presence(espresense: true)
        publisher.stampShift = 3600
        bare.stampShift = 3600
        var expected: [[MQTTMessage]] = []
        for second in 0..<3 {
            let time = TestValues.t0 + Double(second)
            let (heard, estimate) = (MQTTPresenceTests.advertisement(at: time), MQTTPresenceTests.estimate(.near, 1.0, -70, at: time))
            await publisher.publish(advertisement: heard, estimate: estimate, output: .init(), time: time)
            let step = bare.step(advertisement: heard, estimate: estimate, output: .init(), time: time)
            if !step.isEmpty { expected.append(step) }
        }
        #expect(broker.published.withLock { $0 } == expected)
        #expect(broker.published.withLock { $0.count } == 1, "the bike's state once; ESPresense again only after 5 s")
    }
}
