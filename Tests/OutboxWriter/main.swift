// Test helper for OutboxCrashTests: appends sightings to an outbox as fast as it can and prints
// the index of each one after `append` returned (i.e. after it was committed), so the test can
// SIGKILL it mid-write and check that every reported sighting survived.
import Beacon
import Foundation
import Sentinel

let arguments = CommandLine.arguments
guard arguments.count == 3, let count = Int(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: outbox-writer OUTBOX.sqlite COUNT\n".utf8))
    exit(2)
}
let outbox = try await Outbox.open(path: arguments[1], maxRows: 1_000_000)
let beacon = BeaconID(uuid: UUID(), major: 1, minor: 2)
for index in 0..<count {
    let id = UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", index)) ?? UUID()
    let time = 1_763_762_000 + Double(index)
    try await outbox.append(Sighting(id: id, beacon: beacon, event: .present, time: time, firstSeen: time, lastSeen: time,
                                     rssi: -70, distance: 2, zone: .near))
    FileHandle.standardOutput.write(Data("\(index)\n".utf8))
}
try await outbox.close()
