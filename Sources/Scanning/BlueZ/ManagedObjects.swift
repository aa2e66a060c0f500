import DBus

/// BlueZ's object tree from `ObjectManager.GetManagedObjects`: path → interface → properties.
struct ManagedObjects: Sendable {
    var objects: [String: [String: [String: BusValue]]]

    /// Decodes the `a{oa{sa{sv}}}` reply.
    init(reply value: BusValue) throws(BusError) {
        objects = [:]
        for object in try value.dictionary("a{oa{sa{sv}}}") {
            objects[try object.key.objectPath()] = try Self.interfaces(object.value)
        }
    }

    /// Decodes the `a{sa{sv}}` of one object (also InterfacesAdded's second argument).
    static func interfaces(_ value: BusValue) throws(BusError) -> [String: [String: BusValue]] {
        var out = [String: [String: BusValue]]()
        for interface in try value.dictionary("a{sa{sv}}") {
            out[try interface.key.string()] = try interface.value.propertyMap()
        }
        return out
    }

    /// Adapters in path order (hci0 before hci1).
    var adapters: [Adapter] {
        objects.compactMap { path, interfaces in
            interfaces[BlueZ.adapterInterface].map { Adapter(path: path, properties: $0) }
        }
        .sorted { $0.path < $1.path }
    }

    /// Device1 property sets of the devices under an adapter.
    func devices(under adapterPath: String) -> [(path: String, properties: [String: BusValue])] {
        objects.compactMap { path, interfaces in
            guard path.hasPrefix(adapterPath + "/"), let properties = interfaces[BlueZ.deviceInterface] else { return nil }
            return (path, properties)
        }
        .sorted { $0.path < $1.path }
    }
}

/// One `org.bluez.Adapter1`.
struct Adapter: Equatable, Sendable {
    var path: String
    /// Unreadable `Powered` counts as off: scanning would fail anyway.
    var powered: Bool
    /// `Discovering`, nil when unreadable.
    var discovering: Bool?

    init(path: String, powered: Bool, discovering: Bool? = nil) {
        self.path = path
        self.powered = powered
        self.discovering = discovering
    }

    init(path: String, properties: [String: BusValue]) {
        self.init(path: path, powered: (try? properties["Powered"]?.boolean()) ?? false,
                  discovering: try? properties["Discovering"]?.boolean())
    }

    /// The kernel name, e.g. `hci0`.
    var name: String { path.split(separator: "/").last.map(String.init) ?? path }
}

/// Which adapter to scan on.
enum AdapterChoice: Equatable, Sendable {
    case use(Adapter)
    case poweredOff(Adapter)
    /// The requested adapter (or any adapter) is not there; `available` names the ones that are.
    case missing(available: [String])

    /// `requested` is a name (`hci0`) or an object path; nil picks the first powered adapter.
    init(requested: String?, adapters: [Adapter]) {
        if let requested {
            guard let adapter = adapters.first(where: { $0.name == requested || $0.path == requested }) else {
                self = .missing(available: adapters.map(\.name))
                return
            }
            self = adapter.powered ? .use(adapter) : .poweredOff(adapter)
            return
        }
        if let adapter = adapters.first(where: \.powered) {
            self = .use(adapter)
        } else if let adapter = adapters.first {
            self = .poweredOff(adapter)
        } else {
            self = .missing(available: [])
        }
    }
}
