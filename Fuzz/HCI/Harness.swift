/// libFuzzer entry: any bytes as one H4 packet; the parser must throw or report, never trap, and
/// every report must keep the promises its consumers rely on.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzHCIEvent(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = ArraySlice(UnsafeBufferPointer(start: data, count: size))
    try? HCIEventParser.forEachReport(inH4: bytes) { report in
        precondition(report.rssi.map { (-127...20).contains($0) } ?? true, "RSSI \(String(describing: report.rssi)) out of range")
        precondition(report.data.startIndex >= bytes.startIndex && report.data.endIndex <= bytes.endIndex, "data outside the packet")
    }
    return 0
}
