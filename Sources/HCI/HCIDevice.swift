import CBlueZ
#if canImport(Glibc)
import Glibc
#endif

/// What the scan loop needs from a controller. Blocking calls: implementations live on the
/// scanner's dedicated thread, never on Swift's cooperative pool.
public protocol HCIController: AnyObject {
    func setScanParameters(active: Bool) throws(HCIError)
    func setScanEnable(_ enable: Bool) throws(HCIError)
    func filterLEMetaEvents() throws(HCIError)
    func readPacket(timeoutMilliseconds: Int32, into buffer: inout [UInt8]) throws(HCIError) -> ArraySlice<UInt8>?
}

/// An open raw HCI socket on one adapter, through libbluetooth.
public final class HCIDevice: HCIController {
    public let adapter: String
    private let descriptor: Int32
    private var savedFilter: hci_filter?
    public static let commandTimeoutMilliseconds: Int32 = 1000

    /// `hci0` → 0. Only the kernel's names are accepted, so a typo is reported as such.
    public static func index(adapter: String) -> Int32? {
        guard adapter.hasPrefix("hci") else { return nil }
        let digits = adapter.dropFirst(3)
        guard !digits.isEmpty, digits.count <= 4, digits.allSatisfy({ ("0"..."9").contains($0) }), let index = Int32(digits) else { return nil }
        return index
    }

    public init(adapter: String) throws(HCIError) {
        guard let index = Self.index(adapter: adapter) else { throw .invalidAdapterName(adapter) }
        self.adapter = adapter
        // hci_devid checks the adapter exists and is up (errno ENODEV / ENETDOWN / EAFNOSUPPORT).
        guard hci_devid(adapter) >= 0 else { throw .from(errno: errno, adapter: adapter, operation: "looking up the adapter") }
        let fd = hci_open_dev(Int32(index))
        guard fd >= 0 else { throw .from(errno: errno, adapter: adapter, operation: "opening the HCI socket") }
        descriptor = fd
    }

    deinit {
        if var filter = savedFilter {
            setsockopt(descriptor, SOL_HCI, HCI_FILTER, &filter, socklen_t(MemoryLayout<hci_filter>.size))
        }
        hci_close_dev(descriptor)
    }

    /// LE Set Scan Parameters: interval = window, so the radio listens all the time.
    public func setScanParameters(active: Bool) throws(HCIError) {
        let interval: UInt16 = 0x0010 // 10 ms, as hcitool lescan uses
        let params: [UInt8] = [
            active ? 0x01 : 0x00,
            UInt8(interval & 0xFF), UInt8(interval >> 8), // interval, 0.625 ms units
            UInt8(interval & 0xFF), UInt8(interval >> 8), // window = interval: full duty cycle
            0x00, // own address: public
            0x00, // accept all advertisements
        ]
        try leCommand(UInt16(OCF_LE_SET_SCAN_PARAMETERS), params, name: "LE Set Scan Parameters")
    }

    /// LE Set Scan Enable with duplicate filtering off, so every advertisement reaches us.
    public func setScanEnable(_ enable: Bool) throws(HCIError) {
        try leCommand(UInt16(OCF_LE_SET_SCAN_ENABLE), [enable ? 0x01 : 0x00, 0x00], name: enable ? "LE Set Scan Enable" : "LE Set Scan Disable")
    }

    /// Lets only LE Meta events through the socket, remembering the old filter to restore on close.
    public func filterLEMetaEvents() throws(HCIError) {
        var old = hci_filter()
        var length = socklen_t(MemoryLayout<hci_filter>.size)
        guard getsockopt(descriptor, SOL_HCI, HCI_FILTER, &old, &length) == 0 else {
            throw .from(errno: errno, adapter: adapter, operation: "reading the HCI socket filter")
        }
        var filter = hci_filter()
        hci_filter_clear(&filter)
        hci_filter_set_ptype(HCI_EVENT_PKT, &filter)
        hci_filter_set_event(EVT_LE_META_EVENT, &filter)
        guard setsockopt(descriptor, SOL_HCI, HCI_FILTER, &filter, socklen_t(MemoryLayout<hci_filter>.size)) == 0 else {
            throw .from(errno: errno, adapter: adapter, operation: "setting the HCI socket filter")
        }
        savedFilter = old
    }

    public func readPacket(timeoutMilliseconds: Int32, into buffer: inout [UInt8]) throws(HCIError) -> ArraySlice<UInt8>? {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, timeoutMilliseconds)
        if ready < 0 {
            if errno == EINTR { return nil }
            throw .from(errno: errno, adapter: adapter, operation: "waiting for HCI events")
        }
        if ready == 0 { return nil }
        if poller.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0, poller.revents & Int16(POLLIN) == 0 {
            throw .adapterGone(adapter)
        }
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 {
            switch errno {
            case EINTR, EAGAIN: return nil
            case ENETDOWN, ENODEV: throw .adapterGone(adapter)
            default: throw .from(errno: errno, adapter: adapter, operation: "reading HCI events")
            }
        }
        return buffer[0..<count]
    }

    private func leCommand(_ ocf: UInt16, _ parameters: [UInt8], name: String) throws(HCIError) {
        var params = parameters
        var status: UInt8 = 0
        let result = params.withUnsafeMutableBytes { paramBytes in
            withUnsafeMutablePointer(to: &status) { statusPointer in
                var request = hci_request()
                request.ogf = UInt16(OGF_LE_CTL)
                request.ocf = ocf
                request.cparam = paramBytes.baseAddress
                request.clen = Int32(paramBytes.count)
                request.rparam = UnsafeMutableRawPointer(statusPointer)
                request.rlen = 1
                return hci_send_req(descriptor, &request, Self.commandTimeoutMilliseconds)
            }
        }
        guard result >= 0 else { throw .from(errno: errno, adapter: adapter, operation: name) }
        guard status == 0 else { throw .controllerRejected(adapter: adapter, command: name, status: status) }
    }
}
