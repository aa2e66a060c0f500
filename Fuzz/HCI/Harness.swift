/// libFuzzer entry: any bytes as one H4 packet; the parser must throw or report, never trap.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzHCIEvent(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = ArraySlice(UnsafeBufferPointer(start: data, count: size))
    var reports = 0
    try? HCIEventParser.forEachReport(inH4: bytes) { _ in reports += 1 }
    return 0
}
