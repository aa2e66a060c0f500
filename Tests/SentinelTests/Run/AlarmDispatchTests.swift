import Foundation
import Testing
@testable import Sentinel

/// Own-bike alarms go out without holding up the scan, at most `inFlightLimit` at once, each counted, and every
/// one finished by the end of the run.
@Suite struct AlarmDispatchTests {
    @Test func alarmsRunBesideTheScanBoundedAndAllFinishAtTheEnd() async throws {
        let directory = try TestValues.temporaryDirectory().path
        // Each takes a moment, so they are still in flight when the next is raised; each writes a file of its own.
        let alarm = Alarm(webhook: nil, command: ["/bin/sh", "-c", "sleep 0.3; cat > \"$(mktemp -p \(directory))\""], attempts: 1,
                          logger: LogLines().logger())
        let stats = Stats(startedAt: TestValues.t0)
        var dispatch = AlarmDispatch(alarm: alarm, stats: stats)
        let bike = OwnBike(name: "commuter", beacon: TestValues.intel, zone: nil)
        let count = AlarmDispatch.inFlightLimit + 2
        await dispatch.raise((0..<count).map { OwnBikeAlarm(bike: bike, time: TestValues.t0 + Double($0), lastSeen: TestValues.t0) })
        #expect(dispatch.pending == AlarmDispatch.inFlightLimit, "the oldest were waited for to keep the list bounded")
        #expect(await stats.snapshot.alarms == count)

        await dispatch.finish()
        #expect(dispatch.pending == 0)
        let raised = try FileManager.default.contentsOfDirectory(atPath: directory).map {
            try String(contentsOfFile: directory + "/" + $0, encoding: .utf8)
        }
        #expect(raised.count == count, "every alarm ran")
        #expect(raised.allSatisfy { $0.contains(#""bike":"commuter""#) })
    }
}
