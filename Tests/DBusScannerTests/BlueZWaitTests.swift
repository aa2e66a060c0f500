import Logging
@testable import Scanning
import Testing

/// Why a BlueZ session waits: told once per situation, named for `bikebeacon status` with what to check, and
/// reported to the heartbeat as the radio's state.
struct BlueZWaitTests {
    static let all: [BlueZWait] = [
        .starting, .noBus, .bluezMissing, .bluezGone, .adapterMissing(requested: "hci1", available: ["hci0"]),
        .adapterMissing(requested: nil, available: []), .adapterOff("hci0"), .adapterRemoved("hci0"), .refused("org.bluez.Error.Failed"),
    ]

    @Test func aRetryFindingTheSameTroubleUnderItsGenericNameIsNotNews() {
        #expect(BlueZWait.bluezGone.isSameSituation(as: .bluezMissing))
        #expect(BlueZWait.adapterRemoved("hci0").isSameSituation(as: .adapterMissing(requested: nil, available: [])))
        #expect(BlueZWait.adapterOff("hci0").isSameSituation(as: .adapterOff("hci0")))
        #expect(!BlueZWait.bluezMissing.isSameSituation(as: .bluezGone), "bluetoothd leaving after it was missing is news")
        #expect(!BlueZWait.adapterOff("hci0").isSameSituation(as: .adapterOff("hci1")))
        #expect(!BlueZWait.refused("a").isSameSituation(as: .refused("b")))
    }

    @Test func eachWaitSaysWhatItWaitsForAndWhereToLook() {
        #expect(BlueZWait.bluezGone.waitingFor(bluetoothd: "restarting it in 5 s") == "bluetoothd: restarting it in 5 s")
        #expect(BlueZWait.adapterMissing(requested: nil, available: []).waitingFor(bluetoothd: "") ==
            "the Bluetooth adapter (any) (bluetoothctl list; rfkill list)")
        #expect(BlueZWait.adapterOff("hci0").waitingFor(bluetoothd: "").contains("bluetoothctl power on"))
        #expect(BlueZWait.noBus.waitingFor(bluetoothd: "").contains("systemctl status dbus"))
        #expect(Set(Self.all.map { $0.waitingFor(bluetoothd: "x") }).count == Self.all.count - 1,
                "each situation its own text (bluetoothd missing or gone read the same)")
    }

    @Test func everyWaitButTheStartIsOneWarningForTheOperator() {
        for wait in Self.all {
            let lines = LogLines()
            var logger = Logger(label: "test") { _ in CapturingLogHandler(lines: lines) }
            logger.logLevel = .debug
            wait.announce(to: logger, retry: "5.0 seconds")
            if wait == .starting {
                #expect(lines.all.isEmpty)
            } else {
                #expect(lines.all.count == 1 && lines.all.allSatisfy { $0.hasPrefix("warning ") }, "\(wait): \(lines.all)")
            }
        }
        let lines = LogLines()
        BlueZWait.adapterMissing(requested: "hci1", available: ["hci0"]).announce(to: Logger(label: "test") { _ in CapturingLogHandler(lines: lines) }, retry: "5")
        #expect(lines.all.first?.contains("adapter=hci1 available=available: hci0") == true, "\(lines.all)")
    }

    @Test func thePhaseGivesTheRadiosStateToTheHeartbeat() {
        func radio(_ phase: BlueZPhase) -> [Bool?] {
            var counts = ScanCounts()
            phase.radio(&counts)
            return [counts.adapterPresent, counts.adapterPowered, counts.scanning]
        }
        #expect(radio(.scanning(Adapter(path: "/org/bluez/hci0", powered: true))) == [true, true, nil], "scanning itself is the keeper's to say")
        #expect(radio(.waiting(.adapterOff("hci0"))) == [true, false, false])
        #expect(radio(.waiting(.adapterRemoved("hci0"))) == [false, nil, false])
        #expect(radio(.waiting(.bluezGone)) == [nil, nil, false], "without bluetoothd nobody can tell")
    }
}
