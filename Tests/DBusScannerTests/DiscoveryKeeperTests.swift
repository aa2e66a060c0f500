@testable import Scanning
import Testing

/// The keeper's rule: a refusal is not success, and discovery off while we mean to scan is
/// started again, whatever turned it off.
struct DiscoveryKeeperTests {
    static let inProgress = "org.bluez.Error.InProgress"

    /// Runs the keeper as the session does, every 0.1 s from `from` to `to`: a start is refused while
    /// `refuse(time)` holds, else accepted and BlueZ reports Discovering on at once.
    static func run(_ keeper: inout DiscoveryKeeper, from: Double, to: Double, refuse: (Double) -> Bool) -> [(Double, DiscoveryKeeper.Action)] {
        var actions: [(Double, DiscoveryKeeper.Action)] = []
        for step in Int((from * 10).rounded())...Int((to * 10).rounded()) {
            let time = Double(step) / 10
            let action = keeper.due(now: time)
            switch action {
            case .none:
                break
            case .powerCycle:
                actions.append((time, action))
                keeper.powerCycled(now: time)
            case .start:
                actions.append((time, action))
                if refuse(time) {
                    keeper.refused(inProgress, now: time)
                } else {
                    keeper.accepted(now: time)
                    keeper.discoveringChanged(true, now: time)
                }
            }
        }
        return actions
    }

    @Test func aRefusedStartIsNotListeningAndIsRetriedWithBackOff() {
        var keeper = DiscoveryKeeper(configuration: .init(resetAfter: nil))
        keeper.begin(now: 0, discovering: false)
        let actions = Self.run(&keeper, from: 0, to: 10) { $0 < 5 }
        let times = actions.map(\.0)
        // 0, then 0.25 (at 0.3 on the 0.1 s poll), 0.5 later, 1, 2, 2, … until the refusals end.
        #expect(times == [0, 0.3, 0.8, 1.8, 3.8, 5.8])
        #expect(actions.first?.1 == .start(stopFirst: false), "the first start after the adapter appears stops nothing")
        #expect(actions.dropFirst().allSatisfy { $0.1 == .start(stopFirst: true) }, "a retry stops ours first: BlueZ may still count us")
        #expect(keeper.isListening)
        #expect(keeper.refusal == nil)
    }

    @Test func refusedMeansNotListeningEvenWhileAnotherClientDiscovers() {
        var keeper = DiscoveryKeeper()
        keeper.begin(now: 0, discovering: true)
        #expect(keeper.due(now: 0) == .start(stopFirst: false))
        keeper.refused(Self.inProgress, now: 0)
        #expect(!keeper.isListening, "Discovering is someone else's session; ours was refused")
        #expect(keeper.refusal == Self.inProgress)
    }

    @Test func discoveringOffLongerThanTheGraceStartsAgain() {
        var keeper = DiscoveryKeeper()
        keeper.begin(now: 0, discovering: false)
        #expect(keeper.due(now: 0) == .start(stopFirst: false))
        keeper.accepted(now: 0)
        keeper.discoveringChanged(true, now: 0.05)
        #expect(keeper.isListening)

        keeper.discoveringChanged(false, now: 10)
        #expect(!keeper.isListening)
        #expect(keeper.due(now: 11.9) == .none, "BlueZ gets the grace to restart its own")
        #expect(keeper.due(now: 12) == .start(stopFirst: true))
    }

    @Test func aShortFlickerOfDiscoveringIsLeftToBlueZ() {
        var keeper = DiscoveryKeeper()
        keeper.begin(now: 0, discovering: nil)
        _ = keeper.due(now: 0)
        keeper.accepted(now: 0)
        keeper.discoveringChanged(true, now: 0.1)
        keeper.discoveringChanged(false, now: 10)
        keeper.discoveringChanged(true, now: 11)
        #expect(keeper.due(now: 13) == .none)
        #expect(keeper.isListening)
    }

    @Test func anAcceptedStartThatNeverDiscoversIsLost() {
        var keeper = DiscoveryKeeper()
        keeper.begin(now: 0, discovering: false)
        _ = keeper.due(now: 0)
        keeper.accepted(now: 0)
        #expect(!keeper.isListening, "accepted, but Discovering never came on")
        #expect(keeper.due(now: 1.9) == .none)
        #expect(keeper.due(now: 2) == .start(stopFirst: true))
    }

    /// The dead daemon's discovery, as the guest saw it: refused until the kernel's 10.24 s LE timer
    /// ends it. With the reset, the keeper powers the adapter off and on after 3 s instead.
    @Test func anOrphanedDiscoveryIsResetOnceAfterThreeSeconds() {
        var keeper = DiscoveryKeeper()
        keeper.begin(now: 0, discovering: false)
        let actions = Self.run(&keeper, from: 0, to: 12) { $0 < 10.24 }
        let resets = actions.filter { $0.1 == .powerCycle }
        #expect(resets.count == 1, "one power cycle per refusal streak")
        #expect(resets.first.map { $0.0 >= 3 && $0.0 < 4 } == true)
    }

    @Test func noResetWhileSomeoneElseDiscovers() {
        var keeper = DiscoveryKeeper()
        keeper.begin(now: 0, discovering: true)
        let actions = Self.run(&keeper, from: 0, to: 8) { _ in true }
        #expect(!actions.contains { $0.1 == .powerCycle }, "a discovery that somebody owns is not orphaned")
    }

    @Test func theResetCanBeTurnedOff() {
        var keeper = DiscoveryKeeper(configuration: .init(resetAfter: nil))
        keeper.begin(now: 0, discovering: false)
        let actions = Self.run(&keeper, from: 0, to: 20) { _ in true }
        #expect(!actions.contains { $0.1 == .powerCycle })
        #expect(actions.count >= 10, "it keeps trying every 2 s at most")
    }

    @Test func theWatchdogStartsAgainAtOnce() {
        var keeper = DiscoveryKeeper()
        keeper.begin(now: 0, discovering: true)
        _ = keeper.due(now: 0)
        keeper.accepted(now: 0)
        keeper.restart(now: 60)
        #expect(!keeper.isListening)
        #expect(keeper.due(now: 60) == .start(stopFirst: true))
    }
}
