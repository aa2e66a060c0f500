import ArgumentParser
import Console
import Logging
import Scanning
import Sentinel
import Subprocesses

struct EnrollCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enroll",
        abstract: "Set this Pi up as a sentinel with the one-time code from `bikebeacon-server sentinels add`.",
        discussion: """
        Exchanges the code for the sentinel's token (never shown), checks the radio (Bluetooth LE reports \
        heard in 10 s), writes the config (mode 0640, group bikebeacon) atomically and starts \
        bikebeacon-sentinel. An existing config (other than the package's example), a directory it \
        cannot write or a silent radio stop it before the code is used; a used, expired or unknown code \
        or an unreachable server stop it before anything is written. Run it with sudo.
        """
    )

    @Argument(help: "The enrolment URL `sentinels add --public-url` printed (https://server/enrol#CODE), or the server's address.")
    var server: String

    @Argument(help: "The enrolment code, when the first argument is only the server's address.")
    var code: String?

    @Option(help: "The config file to write.")
    var config = "/etc/bikebeacon/sentinel.yaml"

    @Flag(help: "Overwrite an existing config (its old token is no longer used).")
    var replace = false

    @Option(help: "dbus (BlueZ, default) or hci: the scanner the sentinel uses, and the radio check with it.")
    var backend: ScanCommand.Backend = .dbus

    @Option(help: "Adapter, e.g. hci0 (default: the first powered one for dbus, hci0 for hci).")
    var adapter: String?

    @Flag(help: "Skip the radio check (a machine without Bluetooth).")
    var skipRadioCheck = false

    @Flag(help: "Enrol even when the radio check hears nothing.")
    var force = false

    @Flag(help: "Write the config but do not enable and start bikebeacon-sentinel.")
    var noStart = false

    func run() async throws {
        let target: EnrolmentTarget
        do {
            target = try EnrolmentTarget.parse(server, code: code)
        } catch {
            throw ValidationError(error.description)
        }
        var enroller = Enroller(configPath: config) { print($0) }
        enroller.replace = replace
        enroller.force = force
        enroller.backend = backend == .hci ? .hci : .dbus
        enroller.adapter = adapter
        if !skipRadioCheck {
            let (backend, adapter) = (backend, adapter)
            enroller.radioCheck = { try await Self.reportsHeard(backend: backend, adapter: adapter) }
        }
        if !noStart { enroller.startUnit = { try Self.startUnit() } }
        do {
            try await enroller.run(target)
        } catch {
            StandardError.line("bikebeacon enroll: \(error)")
            throw ExitCode.failure
        }
    }

    /// Every BLE report the scanner reads in the check's seconds, iBeacon or not.
    static func reportsHeard(backend: ScanCommand.Backend, adapter: String?) async throws -> Int {
        var logger = Logger(label: "bikebeacon.enroll") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = .warning
        let scanner = backend.scanner(adapter: adapter, watchdog: 60, logger: logger)
        // Listens for the check's seconds, or less when the scanner fails (no adapter, no permission).
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    for try await _ in scanner.advertisementBatches() {}
                } catch where Task.isCancelled {}
            }
            group.addTask { try await Task.sleep(for: .seconds(EnrolmentPlan.radioCheckSeconds)) }
            try await group.next()
            group.cancelAll()
        }
        let counts = await scanner.counts()
        if counts.reports == 0, let waiting = counts.waitingFor { throw Failure("the scanner waited for \(waiting)") }
        return counts.reports
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    static func startUnit() throws {
        let systemctl = try ChildProcess.spawn("/usr/bin/systemctl", ["enable", "--now", "bikebeacon-sentinel"])
        let status = systemctl.wait()
        guard status == 0 else { throw Failure("systemctl enable --now bikebeacon-sentinel exited with \(status)") }
    }
}
