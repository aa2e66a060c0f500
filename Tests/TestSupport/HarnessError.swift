/// A test's helper (a server, a tool) did not do what the test needs of it.
public struct HarnessError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
