import Beacon
import Foundation
import Scanning
import Testing
import TestSupport

/// The D-Bus backend against python-dbusmock's bluez5 template on a private bus per test.
/// Serialized: each test is a few processes and timing-sensitive on a loaded 2-core machine.
@Suite(.serialized, .timeLimit(.minutes(1)), .enabled(if: MockBlueZ.isAvailable, "needs dbus-daemon and python3-dbusmock (scripts/setup installs them)"))
struct DBusScannerIntegrationTests {
    /// Manufacturer data after the company id, from design §3's real vectors.
    static let intelli = "0x004C:0215494e54454c4c495f524f434b535f48575075f2ffc2"
    static let blueCharm = "0x004C:0215426c7565436861726d426561636f6e730efe1355c5"
    static let b5b1 = "0x004C:0215b5b182c7eab14988aa99b5c1517008d90001641ac5"

    @Test func beaconAnnouncedByInterfacesAddedComesOut() async throws {
        try await withMockBlueZ { bus in
            let probe = ScanProbe(bus: bus)
            try await probe.waitUntilScanning()
            let before = Date().timeIntervalSince1970
            try await bus.control("add-device", "hci0", "C4:7C:8D:6A:00:01", "-61", Self.intelli)
            let reports = try await probe.waitForReports(1)
            let report = try #require(reports.first)
            #expect(report.beacon.description == "494E5445-4C4C-495F-524F-434B535F4857:20597:62207")
            #expect(report.rssi == -61)
            #expect(report.measuredPower == -62)
            #expect(report.address?.description == "C4:7C:8D:6A:00:01")
            #expect(report.time >= before && report.time <= Date().timeIntervalSince1970)

            let counts = await probe.stop()
            #expect(counts.reports == 1 && counts.iBeacons == 1 && counts.otherAdvertisements == 0 && counts.errors == 0)
            // The filter that makes BlueZ report every advertisement, and a clean stop.
            let calls = bus.mockCalls()
            #expect(calls.contains(#"SetDiscoveryFilter {"Transport": "le", "DuplicateData": True, "RSSI": -127}"#))
            #expect(calls.contains("StopDiscovery"))
            #expect(probe.error == nil)
        }
    }

    @Test func rssiAndManufacturerDataChangesComeOut() async throws {
        try await withMockBlueZ { bus in
            let probe = ScanProbe(bus: bus)
            try await probe.waitUntilScanning()
            try await bus.control("add-device", "hci0", "C4:7C:8D:6A:00:02", "-60", Self.intelli)
            _ = try await probe.waitForReports(1)
            try await bus.control("set-rssi", "hci0", "C4:7C:8D:6A:00:02", "-48")
            _ = try await probe.waitForReports(2)
            try await bus.control("set-manufacturer-data", "hci0", "C4:7C:8D:6A:00:02", Self.blueCharm)
            let reports = try await probe.waitForReports(3)
            try #require(reports.count == 3)
            #expect(reports.map(\.rssi) == [-60, -48, -48])
            #expect(reports.map(\.beacon.description) == [
                "494E5445-4C4C-495F-524F-434B535F4857:20597:62207",
                "494E5445-4C4C-495F-524F-434B535F4857:20597:62207",
                "426C7565-4368-6172-6D42-6561636F6E73:3838:4949",
            ])
            #expect(reports.map(\.measuredPower) == [-62, -62, -59])
            #expect(await probe.stop().iBeacons == 3)
        }
    }

    @Test func otherDevicesAreCountedNotReportedAndForgotten() async throws {
        try await withMockBlueZ { bus in
            let probe = ScanProbe(bus: bus)
            try await probe.waitUntilScanning()
            try await bus.control("add-device", "hci0", "11:22:33:44:55:01", "-70", "0x0006:01092022")
            try await bus.control("add-device", "hci0", "11:22:33:44:55:02", "-71", "0x004C:1005031c0ca4d1")
            try await bus.control("add-device", "hci0", "11:22:33:44:55:03", "-72")
            try await bus.control("add-device", "hci0", "C4:7C:8D:6A:00:03", "-50", Self.b5b1)
            let reports = try await probe.waitForReports(1)
            #expect(reports.map(\.beacon.description) == ["B5B182C7-EAB1-4988-AA99-B5C1517008D9:1:25626"])

            // BlueZ's cache keeps the beacon and loses the rest (RemoveDevice).
            var objects = ""
            let forgotten = try await eventually(within: 5) {
                objects = (try? await bus.control("objects")) ?? ""
                return !objects.contains("dev_11_22_33_44_55")
            }
            #expect(forgotten, "devices left in BlueZ: \(objects)")
            #expect(objects.contains("dev_C4_7C_8D_6A_00_03"))

            let counts = await probe.stop()
            #expect(counts.reports == 4 && counts.iBeacons == 1 && counts.otherAdvertisements == 3 && counts.errors == 0)
            #expect(probe.advertisements.count == 1)
        }
    }

    @Test func wrongTypedManufacturerDataIsSkippedWithALogLine() async throws {
        try await withMockBlueZ { bus in
            let probe = ScanProbe(bus: bus)
            try await probe.waitUntilScanning()
            // The template's AddDevice: ManufacturerData as aa{qv}.
            try await bus.control("add-quirky-device", "hci0", "C4:7C:8D:6A:00:04")
            try await bus.control("add-device", "hci0", "C4:7C:8D:6A:00:05", "-52", Self.intelli)
            let first = try await probe.waitForReports(1)
            #expect(first.map(\.address?.description) == ["C4:7C:8D:6A:00:05"])
            #expect(probe.logged("expected D-Bus type a{qv}, found aa{qv}") == 1)

            // The same device later sending proper data is heard, with the RSSI it had.
            try await bus.control("set-manufacturer-data", "hci0", "C4:7C:8D:6A:00:04", Self.b5b1)
            let reports = try await probe.waitForReports(2)
            #expect(reports.last?.address?.description == "C4:7C:8D:6A:00:04")
            #expect(reports.last?.rssi == -79)

            let counts = await probe.stop()
            #expect(counts.reports == 3 && counts.iBeacons == 2 && counts.errors == 1)
            #expect(probe.error == nil)
        }
    }

    /// A real capture's reports, announced as BlueZ does with DuplicateData (InterfacesAdded,
    /// then PropertiesChanged per advertisement), come out complete and in order, in batches.
    @Test func aRealCaptureThroughBlueZComesOutCompleteAndInOrder() async throws {
        var expected: [Advertisement] = []
        for try await batch in CaptureScanner(path: Paths.fixture("captures/govee-h5100.btsnoop").path).advertisementBatches() {
            expected += batch
        }
        try #require(expected.count == 99)
        let lines = try expected.map { ad in
            let address = try #require(ad.address?.description)
            // Govee's implausible +12 dBm power byte decodes to "unknown" either way.
            let data = IBeacon.manufacturerData(for: ad.beacon, measuredPower: Int8(ad.measuredPower ?? 12)).dropFirst(2)
            return "\(address) \(ad.rssi) 0x004C:\(Hex.string(data))"
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bikebeacon-replay-\(UUID().uuidString).txt")
        try lines.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }

        try await withMockBlueZ { bus in
            let probe = ScanProbe(bus: bus)
            try await probe.waitUntilScanning()
            _ = try await bus.control("replay", "hci0", file.path)
            let reports = try await probe.waitForReports(expected.count, within: 20)
            func identity(_ ad: Advertisement) -> String {
                "\(ad.beacon) \(ad.rssi) \(ad.measuredPower.map(String.init) ?? "-") \(ad.address?.description ?? "-")"
            }
            #expect(reports.map(identity) == expected.map(identity))
            #expect(probe.batches.allSatisfy { !$0.isEmpty && $0.count <= ScanBatch.limit })
            let counts = await probe.stop()
            #expect(counts.iBeacons == expected.count && counts.errors == 0)
            #expect(probe.error == nil)
        }
    }

    @Test func deviceAlreadyPresentIsPickedUp() async throws {
        try await withMockBlueZ { bus in
            try await bus.control("add-device", "hci0", "C4:7C:8D:6A:00:06", "-66", Self.blueCharm)
            try await bus.control("add-device", "hci0", "11:22:33:44:55:06", "-70", "0x0075:0102")
            let probe = ScanProbe(bus: bus)
            let reports = try await probe.waitForReports(1)
            #expect(reports.map(\.beacon.description) == ["426C7565-4368-6172-6D42-6561636F6E73:3838:4949"])
            #expect(reports.first?.rssi == -66)
            let counts = await probe.stop()
            #expect(counts.reports == 2 && counts.iBeacons == 1 && counts.otherAdvertisements == 1)
        }
    }

    @Test func bluetoothdKilledAndRestartedResumesWithinTenSeconds() async throws {
        try await withMockBlueZ { bus in
            let probe = ScanProbe(bus: bus, retry: .seconds(60))
            try await probe.waitUntilScanning()
            try await bus.control("add-device", "hci0", "C4:7C:8D:6A:00:07", "-60", Self.intelli)
            _ = try await probe.waitForReports(1)

            await bus.killMock()
            try await bus.waitFor("the bluetoothd-gone warning", within: 5) { probe.logged("bluetoothd left the system bus") == 1 }
            let restarted = ContinuousClock.now
            try await bus.startMock()
            try await bus.control("add-adapter", "hci0")
            try await bus.control("add-device", "hci0", "C4:7C:8D:6A:00:08", "-58", Self.b5b1)
            let resumed = try await eventually(within: 10) { probe.advertisements.count >= 2 }
            #expect(resumed, "no report within 10 s of bluetoothd's return; logs:\n\(probe.logLines.joined(separator: "\n"))")
            #expect(ContinuousClock.now - restarted < .seconds(10))
            #expect(probe.advertisements.last?.address?.description == "C4:7C:8D:6A:00:08")
            #expect(bus.mockCalls(2).contains("StartDiscovery"))
            _ = await probe.stop()
            #expect(probe.error == nil)
            #expect(await probe.scanner.counts().restarts == 1, "bluetoothd's return is one restart")
        }
    }

    @Test func systemBusRestartIsSurvived() async throws {
        try await withMockBlueZ { bus in
            let probe = ScanProbe(bus: bus)
            try await probe.waitUntilScanning()
            try await bus.restartBus()
            try await bus.waitFor("the lost-bus warning", within: 5) {
                probe.logged("lost the connection to the system D-Bus: reconnecting (is dbus running? systemctl status dbus) retryEvery=") == 1
            }
            try await probe.waitUntilScanning(times: 2)
            try await bus.control("add-device", "hci0", "C4:7C:8D:6A:00:0C", "-61", Self.intelli)
            #expect(try await probe.waitForReports(1).count == 1)
            _ = await probe.stop()
            #expect(probe.error == nil)
        }
    }

    @Test func adapterRemovedOrPoweredOffIsLoggedAndScanningResumes() async throws {
        try await withMockBlueZ { bus in
            let probe = ScanProbe(bus: bus, retry: .seconds(60), adapter: "hci0")
            try await probe.waitUntilScanning()

            try await bus.control("remove-adapter", "hci0")
            try await bus.waitFor("the adapter-removed warning", within: 5) {
                probe.logLines.contains { $0.hasPrefix("warning") && $0.contains("Bluetooth adapter was removed: scanning paused until it returns; check the USB dongle or rfkill list adapter=hci0") }
            }
            try await bus.control("add-adapter", "hci0")
            try await probe.waitUntilScanning(times: 2)
            try await bus.control("add-device", "hci0", "C4:7C:8D:6A:00:09", "-57", Self.intelli)
            _ = try await probe.waitForReports(1)

            try await bus.control("set-powered", "hci0", "false")
            try await bus.waitFor("the powered-off warning", within: 5) {
                probe.logged("Bluetooth adapter is powered off: power it on with bluetoothctl power on (check rfkill list); waiting adapter=hci0") == 1
            }
            try await bus.control("set-powered", "hci0", "true")
            try await probe.waitUntilScanning(times: 3)
            try await bus.control("set-rssi", "hci0", "C4:7C:8D:6A:00:09", "-44")
            let reports = try await probe.waitForReports(3)
            #expect(reports.last?.rssi == -44)
            _ = await probe.stop()
        }
    }

    @Test func bluetoothdMissingAtStartIsExplainedAndAwaited() async throws {
        try await withMockBlueZ { bus in
            await bus.killMock()
            let probe = ScanProbe(bus: bus, retry: .seconds(60))
            try await bus.waitFor("the not-running warning", within: 5) {
                probe.logged("bluetoothd is not running (nobody owns org.bluez on the system bus): start it with systemctl start bluetooth") == 1
            }
            try await bus.startMock()
            try await bus.control("add-adapter", "hci0")
            try await probe.waitUntilScanning()
            try await bus.control("add-device", "hci0", "C4:7C:8D:6A:00:0A", "-59", Self.blueCharm)
            #expect(try await probe.waitForReports(1).count == 1)
            _ = await probe.stop()
        }
    }

    @Test func watchdogRestartsDiscoveryWhenNothingIsHeard() async throws {
        try await withMockBlueZ { bus in
            let probe = ScanProbe(bus: bus, watchdog: .seconds(1))
            try await probe.waitUntilScanning()
            try await bus.waitFor("a watchdog restart", within: 5) { probe.logged("restarting discovery") >= 1 }
            _ = await probe.stop()
            #expect(await probe.scanner.counts().restarts == probe.logged("restarting discovery"))
            let calls = bus.mockCalls()
            #expect(calls.components(separatedBy: "StartDiscovery").count - 1 >= 2)
            #expect(calls.components(separatedBy: "StopDiscovery").count - 1 >= 2)
        }
    }

    /// The guest's finding: a new bluetoothd's start refused (the kernel still runs the dead one's
    /// discovery) used to be taken for success, and nothing was heard until the watchdog.
    @Test func startDiscoveryRefusedAsInProgressIsRetriedUntilDiscoveryRuns() async throws {
        try await withMockBlueZ { bus in
            try await bus.control("refuse-start-discovery", "hci0", "org.bluez.Error.InProgress", "3")
            let probe = ScanProbe(bus: bus, resetsStuckDiscovery: false)
            try await bus.waitFor("the refusal warning", within: 5) { probe.logged("BlueZ refused to start discovery: not scanning") == 1 }
            #expect(try await eventually(within: 2) { await probe.scanner.counts().waitingFor?.contains("BlueZ refused it (org.bluez.Error.InProgress)") == true })
            try await probe.waitUntilScanning(within: 5)
            #expect(try await bus.control("discovering", "hci0") == "True\n", "discovery runs once the refusals end")
            let starts = bus.mockCalls().split(separator: "\n").filter { $0.hasSuffix(" StartDiscovery") }
            #expect(starts.count == 4, "three refused starts and the one that took")
            #expect(probe.logged("BlueZ started discovery after refusing it: scanning again") == 1)
            let counts = await probe.stop()
            #expect(counts.deafSeconds > 0.5, "the refused stretch (0.25 + 0.5 + 1 s of back-off) counts as deaf")
            #expect(counts.waitingFor == nil)
            #expect(!probe.logLines.contains { $0.contains("powering the adapter off and on") })
        }
    }

    /// Discovery turned off under the sentinel (another client's StopDiscovery, the kernel's timer
    /// with nobody to restart it): started again within the keeper's grace, not at the watchdog.
    @Test func discoveryTurnedOffBySomeoneElseIsStartedAgain() async throws {
        try await withMockBlueZ { bus in
            let probe = ScanProbe(bus: bus)
            try await probe.waitUntilScanning()
            // Listening once BlueZ says Discovering (a moment after "scanning" on a loaded machine).
            #expect(try await eventually(within: 2) { await probe.scanner.counts().waitingFor == nil })
            let started = ContinuousClock.now
            try await bus.control("set-discovering", "hci0", "false")
            try await probe.waitUntilScanning(times: 2, within: 5)
            #expect(ContinuousClock.now - started < .seconds(4), "the grace is 2 s")
            #expect(try await bus.control("discovering", "hci0") == "True\n")
            let counts = await probe.stop()
            #expect(counts.restarts == 1)
            #expect(counts.deafSeconds >= 1.5, "discovery was off for the grace")
        }
    }

    /// A refusal that does not end while nobody discovers: the kernel's orphaned discovery is ended
    /// by powering the adapter off and on, without the operator's powered-off warning.
    @Test func anOrphanedDiscoveryIsEndedByAPowerCycle() async throws {
        try await withMockBlueZ { bus in
            try await bus.control("refuse-start-discovery", "hci0", "org.bluez.Error.InProgress", "5")
            let probe = ScanProbe(bus: bus)
            try await bus.waitFor("the power cycle", within: 8) { probe.logged("powering the adapter off and on") == 1 }
            try await probe.waitUntilScanning(within: 5)
            let calls = bus.mockCalls()
            #expect(calls.contains("Set /org/bluez/hci0 org.bluez.Adapter1.Powered False"), "calls:\n\(calls)")
            #expect(calls.contains("Set /org/bluez/hci0 org.bluez.Adapter1.Powered True"))
            #expect(probe.logged("Bluetooth adapter is powered off") == 0, "our own power cycle is not the operator's")
            _ = await probe.stop()
            #expect(probe.error == nil)
        }
    }

    @Test func aRefusalThatIsNotTransientWaitsAsBefore() async throws {
        try await withMockBlueZ { bus in
            try await bus.control("fail-start-discovery", "hci0", "org.bluez.Error.NotReady")
            let probe = ScanProbe(bus: bus, retry: .seconds(60))
            try await bus.waitFor("the powered-off warning", within: 5) { probe.logged("Bluetooth adapter is powered off") == 1 }
            #expect(try await eventually(within: 2) { await probe.scanner.counts().waitingFor == "hci0 to be powered on (bluetoothctl power on; rfkill list)" })
            _ = await probe.stop()
        }
    }
}
