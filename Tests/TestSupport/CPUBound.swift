import Testing

/// For tests that keep a core busy for seconds (whole-dataset benches, in-process fuzzing): they
/// take turns, one at a time.
///
/// Swift's cooperative pool has one thread per core, two on CI. Two such tests at once hold both
/// for tens of seconds (in a debug build), and every test that waits on a real peer (a broker,
/// the server, an SMTP sink) stalls meanwhile and misses its deadlines. Taking turns leaves one
/// thread to the rest of the suite.
public struct CPUBound: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        await Turns.shared.take()
        do {
            try await function()
        } catch {
            await Turns.shared.pass()
            throw error
        }
        await Turns.shared.pass()
    }
}

extension Trait where Self == CPUBound {
    /// The test (each of its cases) runs only while no other `.cpuBound` test runs.
    public static var cpuBound: Self { CPUBound() }
}

/// One turn at a time, handed on in arrival order; a waiting test is suspended, not holding a thread.
private actor Turns {
    static let shared = Turns()
    private var taken = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func take() async {
        guard taken else {
            taken = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func pass() {
        if waiting.isEmpty {
            taken = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}
