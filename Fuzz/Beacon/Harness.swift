import Beacon

/// libFuzzer entry: any bytes as AD structures and as an iBeacon in each accepted form, and as
/// text an owner pastes for a tag (`BeaconPaste`).
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzBeacon(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let structures = try? AdvertisingData.parse(bytes) {
        for structure in structures where structure.type == ADStructure.manufacturerSpecific {
            _ = try? IBeacon.decode(manufacturerData: structure.data)
        }
    }
    _ = try? IBeacon.decode(advertisingData: bytes)
    _ = try? IBeacon.decode(manufacturerData: bytes)
    _ = try? IBeacon.decode(anyForm: bytes)
    if bytes.count >= 2 {
        _ = try? IBeacon.decode(companyID: UInt16(bytes[0]) | UInt16(bytes[1]) << 8, payload: bytes.dropFirst(2))
    }
    _ = try? BeaconPaste.parse(String(decoding: bytes, as: UTF8.self))
    return 0
}
