/// libFuzzer entry: any bytes as a capture file; the reader must end, throw once, or yield packets.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzCapture(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard var reader = try? CaptureReader(MemoryBytes(bytes)) else { return 0 }
    while let packet = try? reader.next() {
        _ = packet.h4.count
    }
    return 0
}
