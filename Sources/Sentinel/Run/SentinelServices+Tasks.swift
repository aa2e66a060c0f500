/// The tasks that run beside the scan until the run ends: the reporter (once the stamps are right), the MQTT
/// bridge, gpsd and the location it publishes, the metrics endpoint, and the status file every five seconds.
extension SentinelServices {
    func startBackgroundTasks(in group: inout ThrowingTaskGroup<Void, any Error>) {
        let (gate, reporter, status) = (self.gate, self.reporter, self.status)
        group.addTask {
            await gate.wait()
            await reporter.run(sleep: { try await Task.sleep(for: .seconds($0)) })
        }
        if let mqtt { group.addTask { await mqtt.run() } }
        if let client = roaming?.client, let location = roaming?.location {
            group.addTask { await client.run { position in await location.take(position) } }
        }
        if let mqtt, mqtt.settings.publishLocation, let roaming {
            group.addTask { try await Self.publishLocation(of: roaming, to: mqtt) }
        }
        if let port = configuration.metricsPort {
            group.addTask { try await serveMetrics(port: port) }
        }
        group.addTask {
            while !Task.isCancelled {
                await status.write()
                try await Task.sleep(for: .seconds(5))
            }
        }
    }

    /// A roaming sentinel's place, to Home Assistant, checked once a second.
    private static func publishLocation(of roaming: Roaming, to mqtt: MQTTBridge) async throws {
        var location = MQTTLocation(topics: mqtt.topics)
        while !Task.isCancelled {
            if let message = location.step(await roaming.location.place()) { await mqtt.client.publish([message]) }
            try await Task.sleep(for: .seconds(1))
        }
    }

    private func serveMetrics(port: Int) async throws {
        do {
            try await MetricsServer.run(host: configuration.metricsHost, port: port, logger: logger) {
                await status.status().prometheus
            }
        } catch where !(error is CancellationError) {
            // Metrics are for watching; the sentinel's job goes on without them.
            logger.error("cannot serve metrics; is the port taken? (metrics.port)",
                         metadata: ["port": "\(port)", "error": "\(error)"])
        }
    }
}
