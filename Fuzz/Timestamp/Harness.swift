/// libFuzzer entry: any bytes as an RFC 3339 time; what parses must format and parse back the same.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzTimestamp(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let milliseconds = Timestamp.parse(text) {
        let again = Timestamp.parse(Timestamp.format(milliseconds: milliseconds))
        precondition(again == milliseconds, "format/parse round trip changed \(milliseconds) to \(String(describing: again))")
    }
    return 0
}
