/// One iBeacon advertising report as heard by a scanner: the unit every later stage consumes.
public struct Advertisement: Hashable, Sendable {
    public var beacon: BeaconID
    /// Received signal strength, dBm.
    public var rssi: Int
    /// Calibrated RSSI at 1 m from the frame, or nil when the tag sends an implausible value.
    public var measuredPower: Int?
    /// The sender's address at the time; informational only, it may rotate.
    public var address: BluetoothAddress?
    /// Seconds since the Unix epoch, as stamped by the scanner or capture.
    public var time: Double

    /// The RSSI a receiver can report, dBm (Core Spec v5.4, Vol 4, Part E, §7.7.65.2): the one
    /// bound the HCI parser, the sentinel and the server's API all use.
    public static let rssiRange: ClosedRange<Int> = -127...20

    public init(beacon: BeaconID, rssi: Int, measuredPower: Int?, address: BluetoothAddress?, time: Double) {
        self.beacon = beacon
        self.rssi = rssi
        self.measuredPower = measuredPower
        self.address = address
        self.time = time
    }
}
