/// libFuzzer entry: any bytes as the RSSI CSV that `bikebeacon analyze` reads.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzRSSITrace(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    _ = try? RSSITrace.parse(text)
    return 0
}
