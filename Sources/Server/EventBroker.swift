/// Wakes this process's event streams and webhook worker when new events are stored, so they
/// do not wait for their next poll. Streams still poll, which picks up events stored by other
/// server processes sharing the database.
actor EventBroker {
    private var generations: [String: Int] = [:]
    private var deliveryGeneration = 0

    func published(to accounts: Set<String>) {
        for account in accounts { generations[account, default: 0] += 1 }
        if !accounts.isEmpty { deliveryGeneration += 1 }
    }

    func generation(of account: String) -> Int { generations[account, default: 0] }
    func deliveries() -> Int { deliveryGeneration }
}
