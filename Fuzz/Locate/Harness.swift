/// libFuzzer entry: any bytes as what `bikebeacon locate` reads, RECEIVERS.csv, a NUL, then
/// READINGS.csv, through the locator from the receivers' middle (`SiteFrame`), and the fixes scored
/// against READINGS.csv read as the truth (`--truth`). A file may be refused; a fix must never be a
/// NaN, a point at infinity or a radius below zero, a score never a NaN share, and nothing may crash
/// or hang.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzLocate(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let split = bytes.firstIndex(of: 0) ?? bytes.endIndex
    let receiversText = String(decoding: bytes[..<split], as: UTF8.self)
    let readingsText = split < bytes.endIndex ? String(decoding: bytes[(split + 1)...], as: UTF8.self) : ""
    guard let receivers = try? LocateCSV.receivers(receiversText),
          let readings = try? LocateCSV.readings(readingsText, known: Set(receivers.map(\.id))),
          case let frame = SiteFrame(receivers), var locator = try? Locator(receivers: frame.local(receivers)) else { return 0 }
    var fixes: [Fix] = []
    for row in readings.rows {
        guard var fix = try? locator.add(row.reading) else { continue }
        fix.point = frame.site(fix.point)
        fixes.append(fix)
        precondition(fix.point.x.isFinite && fix.point.y.isFinite, "fix at \(fix.point)")
        precondition(fix.radius50.isFinite && fix.radius90.isFinite && fix.radius50 >= 0 && fix.radius90 >= fix.radius50,
                     "radii \(fix.radius50), \(fix.radius90)")
    }
    if let truth = try? LocateCSV.truth(readingsText) {
        let (score, unscored) = truth.score(fixes)
        precondition(score.fixes + unscored == fixes.count, "\(score.fixes) scored and \(unscored) not, of \(fixes.count)")
        if score.fixes > 0 {
            precondition(score.median.isFinite && score.p90 >= score.median, "errors \(score.median), \(score.p90)")
            precondition([score.inside50, score.inside90].allSatisfy { $0.map { (0...1).contains($0) } == true }, "shares \(String(describing: score.inside50))")
        }
    }
    return 0
}
