/// RFC 3339 timestamps, as the API speaks them, to and from epoch milliseconds (how rows store time).
///
/// Written out rather than through a date formatter: it is pure, allocation-light, thread-safe,
/// and strict about what it accepts (`2026-11-21T22:13:44Z`, `…44.5+01:00`).
public enum Timestamp {
    /// Epoch milliseconds for an RFC 3339 date-time, or nil when the text is not one.
    public static func parse(_ text: String) -> Int64? {
        let b = Array(text.utf8)
        guard b.count >= 20, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"),
              b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: "t") || b[10] == UInt8(ascii: " "),
              b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"),
              let year = digits(b, 0, 4), let month = digits(b, 5, 2), let day = digits(b, 8, 2),
              let hour = digits(b, 11, 2), let minute = digits(b, 14, 2), let second = digits(b, 17, 2),
              (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
              hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        var millis: Int64 = 0
        if b[index] == UInt8(ascii: ".") {
            index += 1
            var scale: Int64 = 100
            let start = index
            while index < b.count, let d = digit(b[index]) {
                millis += Int64(d) * scale
                scale /= 10
                index += 1
            }
            guard index > start, index - start <= 9 else { return nil }
        }
        guard index < b.count else { return nil }
        var offsetMinutes: Int64 = 0
        switch b[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            guard index + 1 == b.count else { return nil }
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard index + 6 == b.count, b[index + 3] == UInt8(ascii: ":"),
                  let oh = digits(b, index + 1, 2), let om = digits(b, index + 4, 2), oh < 24, om < 60
            else { return nil }
            offsetMinutes = Int64(oh * 60 + om) * (b[index] == UInt8(ascii: "+") ? 1 : -1)
        default:
            return nil
        }
        let days = daysFromCivil(year: Int64(year), month: Int64(month), day: Int64(day))
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + min(second, 59)) - offsetMinutes * 60
        let milliseconds = seconds * 1000 + millis
        // An offset can push a year-0000 or year-9999 local time out of the four-digit years in UTC,
        // which `format` could not write back as RFC 3339 (found by scripts/fuzz).
        return representable.contains(milliseconds) ? milliseconds : nil
    }

    /// 0000-01-01T00:00:00.000Z through 9999-12-31T23:59:59.999Z: the instants with a four-digit UTC year.
    static let representable: ClosedRange<Int64> =
        daysFromCivil(year: 0, month: 1, day: 1) * 86_400_000...daysFromCivil(year: 10_000, month: 1, day: 1) * 86_400_000 - 1

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ` in UTC.
    public static func format(milliseconds: Int64) -> String {
        let seconds = milliseconds.floorDiv(1000)
        let millis = milliseconds - seconds * 1000
        let days = seconds.floorDiv(86_400)
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civilFromDays(days)
        return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T"
            + pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay % 3600 / 60, 2) + ":" + pad(secondOfDay % 60, 2)
            + "." + pad(millis, 3) + "Z"
    }

    private static func digit(_ byte: UInt8) -> Int? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? Int(byte - UInt8(ascii: "0")) : nil
    }

    private static func digits(_ b: [UInt8], _ start: Int, _ count: Int) -> Int? {
        var value = 0
        for i in start..<(start + count) {
            guard let d = digit(b[i]) else { return nil }
            value = value * 10 + d
        }
        return value
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }

    /// Howard Hinnant's days_from_civil: days since 1970-01-01 in the proleptic Gregorian calendar.
    private static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = y.floorDiv(400)
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    private static func civilFromDays(_ days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = z.floorDiv(146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

extension Int64 {
    fileprivate func floorDiv(_ divisor: Int64) -> Int64 {
        let q = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? q - 1 : q
    }
}
