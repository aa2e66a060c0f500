/// What can go wrong talking to a D-Bus peer.
public enum BusError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An error reply or a libdbus failure, with the D-Bus error name (e.g. `org.bluez.Error.InProgress`).
    case remote(name: String, message: String)
    /// A value on the bus had another type than the protocol promises.
    case typeMismatch(expected: String, found: String)
    /// The message did not have the arguments its member needs.
    case missingArgument(index: Int, member: String)
    /// The connection to the bus is gone.
    case disconnected
    /// libdbus could not allocate memory for a message.
    case outOfMemory
    /// libdbus-1 itself could not be loaded (it is loaded on first use, not linked).
    case libraryUnavailable(String)

    /// The D-Bus error name, when the peer or libdbus gave one.
    public var name: String? {
        if case let .remote(name, _) = self { return name }
        return nil
    }

    public var description: String {
        switch self {
        case let .remote(name, message): message.isEmpty ? name : "\(name): \(message)"
        case let .typeMismatch(expected, found): "expected D-Bus type \(expected), found \(found)"
        case let .missingArgument(index, member): "\(member) has no argument \(index)"
        case .disconnected: "the D-Bus connection was closed"
        case .outOfMemory: "out of memory building a D-Bus message"
        case let .libraryUnavailable(problem): problem
        }
    }

    public static let noReply = "org.freedesktop.DBus.Error.NoReply"
    public static let serviceUnknown = "org.freedesktop.DBus.Error.ServiceUnknown"
    public static let nameHasNoOwner = "org.freedesktop.DBus.Error.NameHasNoOwner"
    public static let accessDenied = "org.freedesktop.DBus.Error.AccessDenied"
}
