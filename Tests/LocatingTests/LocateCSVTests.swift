import Locating
import Testing

struct LocateCSVTests {
    @Test func readsReceiversByHeaderNameWithEachCalibrationKind() throws {
        let receivers = try LocateCSV.receivers("""
        z_m,id,x_m,y_m,rssi_1m,exponent\r
        2.3,door,0.5,1,-61,2.1\r
        1.2,shed, 4 ,5,-58,\r

        1.2,gate,-3,7,,
        """)
        #expect(receivers.map(\.id) == ["door", "shed", "gate"])
        #expect(receivers[0].calibration == .twoPoint(rssiAt1m: -61, exponent: 2.1))
        #expect(receivers[1].calibration == .onePoint(rssiAt1m: -58) && receivers[1].position == PlanePoint(x: 4, y: 5))
        #expect(receivers[2].calibration == .none)
        #expect(try LocateCSV.receivers("id,x_m,y_m,z_m\na,1,2,0").first?.calibration == ReceiverCalibration.none)
        // Heights never surveyed: unused, so not a reason to refuse the site; a height that is not a number still is.
        #expect(try LocateCSV.receivers("id,x_m,y_m,z_m\na,1,2,\nb,3,4,1.5").map(\.id) == ["a", "b"])
        #expect(throws: LocateCSVError.self) { try LocateCSV.receivers("id,x_m,y_m,z_m\na,1,2,high") }
    }

    /// As a spreadsheet saves them: a byte-order mark, CRLF, every field in double quotes.
    @Test func readsASpreadsheetsExport() throws {
        let receivers = try LocateCSV.receivers("\u{FEFF}\"id\",\"x_m\",\"y_m\",\"z_m\"\r\n\"door\",\"0.5\",\"1\",\"2.3\"\r\n")
        #expect(receivers.map(\.id) == ["door"] && receivers.first?.position == PlanePoint(x: 0.5, y: 1))
        let readings = try LocateCSV.readings("\u{FEFF}time_s,receiver,rssi_dbm\r\n10.5,\"door\",-70\r\n", known: ["door"]).rows
        #expect(readings.map(\.reading) == [Reading(time: 10.5, receiver: "door", rssi: -70)])
    }

    @Test func refusesBadReceiversNamingTheLine() throws {
        func failure(_ text: String) -> LocateCSVError? {
            do { _ = try LocateCSV.receivers(text); return nil } catch { return error }
        }
        #expect(failure("id,x_m,y_m\na,1,2")?.description.contains("no column `z_m`") == true)
        #expect(failure("id,x_m,y_m,z_m\na,1,2,0\na,3,4,0")?.line == 3)
        #expect(failure("id,x_m,y_m,z_m\na,1,nan,0")?.line == 2)
        #expect(failure("id,x_m,y_m,z_m,rssi_1m,exponent\na,1,2,0,,2")?.message.contains("without rssi_1m") == true)
        #expect(failure("id,x_m,y_m,z_m,rssi_1m\na,1,2,0,5")?.message.contains("rssi_1m") == true)
        // Found by the fuzzer: a place of 1e308 m squared to infinity and made every fix NaN.
        #expect(failure("id,x_m,y_m,z_m\na,1,2,0\nb,1e308,2,0")?.message.contains("x_m 1e+308 is beyond") == true)
        #expect(failure("id,x_m,y_m,z_m\na,1,-200000000,0")?.line == 2)
        // A national grid's metres are places, not typos: UTM's northings run to millions.
        #expect(try LocateCSV.receivers("id,x_m,y_m,z_m\na,500012.5,5800003,0").first?.position == PlanePoint(x: 500_012.5, y: 5_800_003))
        #expect(failure("id,x_m,y_m,z_m,rssi_1m,exponent\na,1,2,0,-59,0.01")?.message.contains("exponent 0.01") == true)
        #expect(failure("id,x_m,y_m,z_m\n")?.message.contains("no receivers") == true)
        #expect(failure("")?.message.contains("empty") == true)
        #expect(failure("id;x_m;y_m;z_m\na;1;2;0")?.message.hasSuffix("separated by `;`, not commas") == true)
    }

    @Test func readsReadingsIgnoringExtraColumns() throws {
        let rows = try LocateCSV.readings("""
        truth_x_m,time_s,receiver,rssi_dbm
        1.0,10.5,door,-70
        2.0,10.9,shed,-81
        """, known: ["door", "shed"]).rows
        #expect(rows.map(\.reading) == [Reading(time: 10.5, receiver: "door", rssi: -70), Reading(time: 10.9, receiver: "shed", rssi: -81)])
        #expect(rows.map(\.line) == [2, 3])
    }

    @Test func refusesBadReadingsNamingTheLine() {
        func failure(_ text: String) -> LocateCSVError? {
            do { _ = try LocateCSV.readings("time_s,receiver,rssi_dbm\n1,door,-70\n" + text, known: ["door"]); return nil } catch { return error }
        }
        #expect(failure("2,attic,-70")?.description == "line 3: receiver `attic` is not in the receivers file; add it with its place")
        #expect(failure("2,door,NaN")?.line == 3)
        #expect(failure("2,door")?.line == 3)
    }

    /// A file written receiver by receiver: read in time order, ties as written.
    @Test func sortsReadingsByTime() throws {
        let read = try LocateCSV.readings("time_s,receiver,rssi_dbm\n1,door,-70\n3,door,-71\n2,shed,-80\n1,shed,-81\n", known: ["door", "shed"])
        #expect(read.rows.map(\.line) == [2, 5, 4, 3])
    }

    /// The median receiver's median gap: a receiver heard once says nothing, an outlying gap moves nothing.
    @Test func typicalGapIsTheMedianReceiversMedianGap() throws {
        let read = try LocateCSV.readings("""
            time_s,receiver,rssi_dbm
            0,door,-70
            1,door,-70
            2,door,-70
            90,door,-70
            0,shed,-70
            3,shed,-70
            6,shed,-70
            0,gate,-70
            0.5,gate,-70
            50,lone,-70
            """, known: ["door", "shed", "gate", "lone"])
        #expect(read.typicalGap == 1, "door 1 (the 88 s silence aside), shed 3, gate 0.5; lone has no gap")
        #expect(try LocateCSV.readings("time_s,receiver,rssi_dbm\n1,door,-70\n2,shed,-71\n", known: ["door", "shed"]).typicalGap == nil)
    }

    /// philotuxo's straight_05 line 176 reads +42 dBm: the reading goes, the track stays.
    @Test func skipsAnImpossibleRSSINamingTheLine() throws {
        let read = try LocateCSV.readings("time_s,receiver,rssi_dbm\n1,door,-70\n2,door,42\n3,door,-130\n4,door,0\n5,door,-71\n", known: ["door"])
        #expect(read.rows.map(\.line) == [2, 6])
        #expect(read.skipped.map(\.line) == [3, 4, 5])
        #expect(read.skipped.first?.description == "line 3: rssi_dbm 42.0 is not a real signal strength (between -127 and 0 dBm); reading skipped")
    }

    @Test func writesOneLinePerFixToTheCentimetre() {
        let fix = Fix(time: 12.3456, point: PlanePoint(x: -1.005, y: 17.5), radius50: 2.444, radius90: 5, receivers: 4)
        #expect(LocateCSV.fixHeader == "time_s,x_m,y_m,radius50_m,radius90_m,receivers")
        #expect(LocateCSV.line(fix) == "12.346,-1.00,17.50,2.44,5.00,4" || LocateCSV.line(fix) == "12.346,-1.01,17.50,2.44,5.00,4")
    }

    /// A truth file of its own, or READINGS.csv's own truth columns; a row with no place is left out.
    @Test func readsTheTruthEitherWay() throws {
        let own = try LocateCSV.truth("time_s,x_m,y_m\r\n2,4,5\r\n1,0,1\r\n")
        #expect(own.samples == [.init(time: 1, point: PlanePoint(x: 0, y: 1)), .init(time: 2, point: PlanePoint(x: 4, y: 5))])
        let readings = try LocateCSV.truth("\u{FEFF}time_s,receiver,rssi_dbm,truth_x_m,truth_y_m\n1,a,-70,3,4\n2,b,-71,,\n3,a,-72,5,6\n")
        #expect(readings.samples.map(\.time) == [1, 3])
        #expect(readings.point(at: 2) == PlanePoint(x: 4, y: 5))
    }

    @Test func refusesABadTruthNamingTheLine() {
        func failure(_ text: String) -> LocateCSVError? {
            do { _ = try LocateCSV.truth(text); return nil } catch { return error }
        }
        #expect(failure("time_s,receiver,rssi_dbm\n1,a,-70")?.description == "line 1: the header has no column `x_m`; expected time_s,x_m,y_m")
        #expect(failure("time_s,x_m,y_m\n1,2,3\n2,nan,3")?.line == 3)
        #expect(failure("time_s,x_m,y_m\n1,2,")?.message == "x_m and y_m are given one without the other")
        #expect(failure("time_s,x_m,y_m\n1,2e300,3")?.message.contains("x_m 2e+300 is beyond") == true)
        #expect(failure("time_s,x_m,y_m\n1,,\n")?.message == "no places after the header")
    }
}
