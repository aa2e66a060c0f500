/// libFuzzer entry: any bytes as a stream from the broker, parsed packet by packet as the client does.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzMQTT(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var rest = ArraySlice(UnsafeBufferPointer(start: data, count: size))
    while let parsed = try? MQTTPacketParser.parse(rest, maximumPacketSize: 1 << 16) {
        precondition(parsed.length > 0 && parsed.length <= rest.count, "parser consumed \(parsed.length) of \(rest.count) bytes")
        rest = rest.dropFirst(parsed.length)
    }
    return 0
}
