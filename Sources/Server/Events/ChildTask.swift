/// Runs `work` in a child task and returns what it returns (or throws what it throws).
///
/// Swift's task allocator keeps a task's slabs until the task ends: the deepest chain of async frames a task
/// ever ran (a database read through sql-kit and its driver) stays allocated for its whole life. An open event
/// stream lives for hours, so its reads run here, in a task whose memory goes when the read is done.
func inChildTask<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask(operation: work)
        guard let value = try await group.next() else { throw CancellationError() }
        return value
    }
}
