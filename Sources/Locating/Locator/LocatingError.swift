/// Why the locator refused its input; each says what to fix.
public enum LocatingError: Error, Equatable, CustomStringConvertible {
    case unknownReceiver(String)
    case duplicateReceiver(String)
    case rssi(Double)
    case time(Double)
    case timeWentBack(time: Double, previous: Double)
    case calibration(receiver: String, reason: String)
    case position(receiver: String)

    public var description: String {
        switch self {
        case .unknownReceiver(let id):
            "receiver `\(id)` is not among the receivers given; add it with its place"
        case .duplicateReceiver(let id):
            "receiver `\(id)` is given twice; give each receiver once"
        case .rssi(let value):
            "RSSI \(value) dBm is not a real signal strength (between -127 and 0 dBm, exclusive)"
        case .time(let value):
            "time \(value) is not a finite number of seconds"
        case let .timeWentBack(time, previous):
            "time \(time) s is more than a second before the previous reading's \(previous) s; sort the readings by time"
        case let .calibration(receiver, reason):
            "receiver `\(receiver)`: \(reason)"
        case .position(let receiver):
            "receiver `\(receiver)`: its place must be metres within \(Int(Receiver.farthest)) of the frame's origin, and its accuracy 0 to \(Int(Receiver.farthest)) metres"
        }
    }
}
