import Beacon
import Testing

/// What owners paste when they add a tag: every form a vendor's app, label, scanner or link shows
/// gives the same beacon, and anything else a message that says what would work.
struct BeaconPasteTests {
    /// Design §3's first vector (the own bike's tag in the bundled capture) and second.
    static let intel = BeaconID("494E5445-4C4C-495F-524F-434B535F4857:20597:62207")
    static let blueCharm = BeaconID("426C7565-4368-6172-6D42-6561636F6E73:3838:4949")

    @Test(arguments: [
        "494E5445-4C4C-495F-524F-434B535F4857:20597:62207",
        "494e5445-4c4c-495f-524f-434b535f4857/20597/62207",
        "  494e5445-4c4c-495f-524f-434b535f4857, 20597, 62207\n",
        "494e54454c4c495f524f434b535f4857 20597 62207",
        "UUID: 494e5445-4c4c-495f-524f-434b535f4857\nMajor: 20597\nMinor: 62207\nTx Power: -62 dBm",
        "iBeacon uuid 494E5445-4C4C-495F-524F-434B535F4857 major 20597 minor 62207 rssi -71",
        "Minor: 62207 Major: 20597 UUID: 494e5445-4c4c-495f-524f-434b535f4857",
        "Major: 0x5075, Minor: 0xF2FF, UUID: 494e5445-4c4c-495f-524f-434b535f4857",
        "iBeacon:494e5445-4c4c-495f-524f-434b535f4857-20597-62207",
        "https://tags.example.com/register?uuid=494e5445-4c4c-495f-524f-434b535f4857&major=20597&minor=62207",
        "MAJOR=20597&UUID=494E5445-4C4C-495F-524F-434B535F4857&MINOR=62207",
        "4c000215494e54454c4c495f524f434b535f48575075f2ffc2",
        "0x4C000215494E54454C4C495F524F434B535F48575075F2FFC2",
        "4c:00:02:15:49:4e:54:45:4c:4c:49:5f:52:4f:43:4b:53:5f:48:57:50:75:f2:ff:c2",
        "0215494e54454c4c495f524f434b535f48575075f2ffc2",
        "0201061aff4c000215494e54454c4c495f524f434b535f48575075f2ffc2",
    ])
    func everyFormOfTheSameTagGivesIt(_ text: String) throws {
        #expect(try BeaconPaste.parse(text) == Self.intel)
    }

    /// Labels are read before position: a power reading after them is not taken for a number.
    @Test func aScannerLineWithRSSIAndDistance() throws {
        let line = "Beacon 426c7565-4368-6172-6d42-6561636f6e73  RSSI -59  Major 3838  Minor 4949  ~1.2 m"
        #expect(try BeaconPaste.parse(line) == Self.blueCharm)
    }

    /// Numbers that are no digits between the UUID and its major and minor are passed over; they
    /// hung the parser once (a fuzzer's find: `¾` after a UUID), hence the time limit.
    @Test(.timeLimit(.minutes(1)), arguments: [
        "494e5445-4c4c-495f-524f-434b535f4857 ¾ 20597 62207",
        "494E5445-4C4C-495F-524F-434B535F4857² 20597 Ⅻ 62207",
    ])
    func numbersThatAreNoDigitsArePassedOver(_ text: String) throws {
        #expect(try BeaconPaste.parse(text) == Self.intel)
    }

    @Test(.timeLimit(.minutes(1)))
    func theFuzzersHangingPasteGetsAnAnswer() {
        let bytes: [UInt8] = Array("'uuui\u{06}major494e5445-4c4c-495f-524f-434b535f485d".utf8) + [0x8d, 0xc2, 0xbe, 0x1f, 0x00, 0x04, 0x00]
        #expect(throws: BeaconPaste.Failure.self) { try BeaconPaste.parse(String(decoding: bytes, as: UTF8.self)) }
    }

    @Test(arguments: [
        ("", BeaconPaste.Failure.empty),
        ("my blue bike", .noUUID),
        ("494e5445-4c4c-495f-524f-434b535f4857", .noMajorMinor(uuid: "494E5445-4C4C-495F-524F-434B535F4857")),
        ("494e5445-4c4c-495f-524f-434b535f4857/70000/1", .outOfRange(name: "major", value: "70000")),
        ("uuid=494e5445-4c4c-495f-524f-434b535f4857&major=1", .noMajorMinor(uuid: "494E5445-4C4C-495F-524F-434B535F4857")),
        ("4c000215494e5445", .notIBeacon(.wrongLength(6))),
        // A UUID-length run inside longer hex is not a UUID.
        ("4c000216494e54454c4c495f524f434b535f48575075f2ffc2", .noUUID),
    ])
    func anythingElseSaysWhatWouldWork(_ text: String, _ failure: BeaconPaste.Failure) {
        #expect(throws: failure) { try BeaconPaste.parse(text) }
        #expect(!failure.description.isEmpty)
    }
}
