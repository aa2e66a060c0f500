/// The DATA payload as it goes on the wire (RFC 5321 §4.5.2): CRLF line ends, a leading "."
/// doubled so no line can end the message early, and the terminating `CRLF . CRLF`.
public enum SMTPData {
    public static func stuffed(_ message: String) -> String {
        var output = ""
        output.reserveCapacity(message.utf8.count + 16)
        var lines = message.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { line in
            line.last == UInt8(ascii: "\r") ? line.dropLast() : line[...]
        }
        if lines.last?.isEmpty == true { lines.removeLast() }
        for line in lines {
            if line.first == UInt8(ascii: ".") { output += "." }
            output += String(decoding: line, as: UTF8.self) + "\r\n"
        }
        return output + ".\r\n"
    }
}
