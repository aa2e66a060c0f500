/// libFuzzer entry: any bytes as a stream from gpsd, framed into lines and decoded as the client
/// does; whatever decodes as a position must be within range.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzGPSD(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    var framer = GPSDLineFramer(maximumLength: 4096)
    // Two reads, split in the middle: framing must not depend on where a read ends.
    let lines = framer.lines(bytes.prefix(size / 2)) + framer.lines(bytes.dropFirst(size / 2))
    for line in lines {
        precondition(line.count <= 4096, "a line of \(line.count) bytes passed the framer's limit")
        guard case let .success(.position(position)) = GPSDProtocol.decode(line) else { continue }
        if let latitude = position.latitude { precondition((-90...90).contains(latitude), "latitude \(latitude)") }
        if let longitude = position.longitude { precondition((-180...180).contains(longitude), "longitude \(longitude)") }
        if let error = position.horizontalError { precondition(error.isFinite && error >= 0, "horizontal error \(error)") }
        if let speed = position.speed { precondition(speed.isFinite && speed >= 0, "speed \(speed)") }
    }
    return 0
}
