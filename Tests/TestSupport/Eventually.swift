/// Polls `condition` until it holds or `seconds` pass; true if it held. For waiting on real peers
/// (a broker, a server, a bus) whose timing a test does not control: the poll is frequent, so a
/// condition that holds is seen at once, and only a condition that never holds costs the wait.
public func eventually(within seconds: Double = 30, every interval: Duration = .milliseconds(50),
                       _ condition: () async throws -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: interval)
    }
    return try await condition()
}
