/// libFuzzer entry: any bytes as what `bikebeacon locate` reads, RECEIVERS.csv, a NUL, then
/// READINGS.csv, through the locator. A file may be refused; a fix must never be a NaN, a point
/// at infinity or a radius below zero, and nothing may crash or hang.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzLocate(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let split = bytes.firstIndex(of: 0) ?? bytes.endIndex
    let receiversText = String(decoding: bytes[..<split], as: UTF8.self)
    let readingsText = split < bytes.endIndex ? String(decoding: bytes[(split + 1)...], as: UTF8.self) : ""
    guard let receivers = try? LocateCSV.receivers(receiversText),
          let readings = try? LocateCSV.readings(readingsText, known: Set(receivers.map(\.id))),
          var locator = try? Locator(receivers: receivers) else { return 0 }
    for row in readings.rows {
        guard let fix = try? locator.add(row.reading) else { continue }
        precondition(fix.point.x.isFinite && fix.point.y.isFinite, "fix at \(fix.point)")
        precondition(fix.radius50.isFinite && fix.radius90.isFinite && fix.radius50 >= 0 && fix.radius90 >= fix.radius50,
                     "radii \(fix.radius50), \(fix.radius90)")
    }
    return 0
}
