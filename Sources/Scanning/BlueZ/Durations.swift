/// Durations as the BlueZ backend's timers and libdbus's timeouts take them.
func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

func milliseconds(_ duration: Duration) -> Int32 {
    Int32(clamping: duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
}
