/// libFuzzer entry: any bytes as a server's replies, arriving in two reads split at the first byte's value.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzSMTPReply(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let split = bytes.isEmpty ? 0 : Int(bytes[0]) % bytes.count
    var parser = SMTPReplyParser()
    parser.append(bytes[..<split])
    while let _ = try? parser.next() {}
    parser.append(bytes[split...])
    while let _ = try? parser.next() {}
    return 0
}
