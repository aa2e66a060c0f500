import Testing
@testable import MQTT

/// What goes out again after a reconnect, and what is kept while the broker is away.
@Suite struct MQTTSessionTests {
    static func message(_ topic: String, _ text: String, qos: MQTTQoS = .atLeastOnce, retain: Bool = false) -> MQTTMessage {
        MQTTMessage(topic: topic, text: text, qos: qos, retain: retain)
    }

    @Test func unacknowledgedQoS1IsSentAgainWithDUP() {
        var session = MQTTSession()
        session.enqueue(Self.message("a", "1"))
        session.enqueue(Self.message("b", "2", qos: .atMostOnce))
        session.enqueue(Self.message("c", "3"))
        let first = session.drain()
        #expect(first.map(\.packetID) == [1, nil, 2])
        #expect(first.allSatisfy { !$0.duplicate })
        let acknowledged = session.acknowledge(1)
        let again = session.acknowledge(1)
        #expect(acknowledged && !again)
        // The connection drops before PUBACK 2; a new message waits meanwhile.
        session.enqueue(Self.message("d", "4"))
        let resumed = session.resume()
        #expect(resumed.map(\.message.topic) == ["c", "d"])
        #expect(resumed.map(\.duplicate) == [true, false])
        #expect(resumed.map(\.packetID) == [2, 3])
        session.acknowledge(2)
        session.acknowledge(3)
        #expect(session.isIdle)
    }

    @Test func aRetainedStateReplacesTheOneStillWaiting() {
        var session = MQTTSession()
        session.enqueue(Self.message("bike/state", "near", retain: true))
        session.enqueue(Self.message("bike/event", "x"))
        session.enqueue(Self.message("bike/state", "far", retain: true))
        #expect(session.waiting.map(\.payload) == [Array("x".utf8), Array("far".utf8)])
    }

    @Test func retainedMessagesGoOutAgainAfterEveryReconnect() {
        var session = MQTTSession()
        session.enqueue(Self.message("status", "online", retain: true))
        session.enqueue(Self.message("bike/state", "near", retain: true))
        session.enqueue(Self.message("event", "x"))
        for publish in session.drain() { session.acknowledge(publish.packetID ?? 0) }
        session.enqueue(Self.message("bike/state", "far", retain: true))
        // The broker restarted: it has forgotten the retained status, and gets the newest state once.
        let resumed = session.resume()
        #expect(resumed.map(\.message.topic) == ["status", "bike/state"])
        #expect(resumed.last?.message.payload == Array("far".utf8))
    }

    @Test func theOldestWaitingMessagesGoWhenFull() {
        var session = MQTTSession(capacity: 3)
        for i in 0..<5 { session.enqueue(Self.message("t\(i)", "\(i)")) }
        #expect(session.waiting.map(\.topic) == ["t2", "t3", "t4"])
        #expect(session.dropped == 2)
    }

    @Test func packetIDsWrapAndSkipThoseInFlight() {
        var session = MQTTSession()
        session.enqueue(Self.message("first", "held"))
        #expect(session.drain().first?.packetID == 1)
        var last: UInt16?
        for _ in 0..<65_535 {
            session.enqueue(Self.message("t", "x"))
            let publish = session.drain()
            last = publish.first?.packetID
            if let last, last != 1 { session.acknowledge(last) }
            #expect(last != 1)
        }
        #expect(last == 2)
    }
}
