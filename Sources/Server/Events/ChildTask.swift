/// Runs `work` in a task of its own and returns what it returns (or throws what it throws); cancelling the caller
/// cancels it, and the caller waits for it either way, so it never outlives the call.
///
/// Swift's task allocator keeps a task's slabs until the task ends: the deepest chain of async frames a task
/// ever ran (a database read through sql-kit and its driver) stays allocated for its whole life. An open event
/// stream lives for hours, so its reads run here, in a task whose memory goes when the read is done. Not a task
/// group: a group's storage and frames are allocated from the caller's slabs, which is what this is to spare.
func inChildTask<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
    let task = Task(operation: work)
    return try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
}
