import AsyncHTTPClient
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
import Logging
import Subprocesses
import NIOCore

/// Raises the own-bike alarm: POSTs the event JSON to a webhook and/or runs a command with the
/// event JSON on stdin. Each is tried a few times with backoff: an alarm that silently fails
/// is worse than none.
public struct Alarm: Sendable {
    public var webhook: String?
    public var command: [String]?
    public var client: HTTPClient
    public var attempts: Int
    private let logger: Logger

    public init(webhook: String?, command: [String]?, client: HTTPClient = .shared, attempts: Int = 3,
                logger: Logger = Logger(label: "bikebeacon.alarm")) {
        self.webhook = webhook
        self.command = command
        self.client = client
        self.attempts = max(1, attempts)
        self.logger = logger
    }

    public func raise(_ alarm: OwnBikeAlarm) async {
        let body: Data
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            body = try encoder.encode(alarm)
        } catch {
            logger.error("cannot encode the alarm", metadata: ["error": "\(error)"])
            return
        }
        logger.warning("own bike left its place: raising the alarm",
                       metadata: ["bike": "\(alarm.bike)", "lastSeen": "\(alarm.lastSeen)"])
        await withTaskGroup(of: Void.self) { group in
            if let webhook { group.addTask { await post(body, to: webhook) } }
            if let command { group.addTask { await execute(command, stdin: body) } }
        }
    }

    private func post(_ body: Data, to url: String) async {
        for attempt in 1...attempts {
            do {
                var request = HTTPClientRequest(url: url)
                request.method = .POST
                request.headers.add(name: "Content-Type", value: "application/json")
                request.body = .bytes(ByteBuffer(bytes: body))
                let response = try await client.execute(request, timeout: .seconds(10))
                if (200..<300).contains(response.status.code) {
                    logger.info("alarm webhook delivered", metadata: ["url": "\(url)"])
                    return
                }
                logger.warning("alarm webhook refused", metadata: ["url": "\(url)", "status": "\(response.status.code)", "attempt": "\(attempt)"])
            } catch {
                logger.warning("alarm webhook unreachable", metadata: ["url": "\(url)", "error": "\(error)", "attempt": "\(attempt)"])
            }
            if attempt < attempts { try? await Task.sleep(for: .seconds(Double(attempt))) }
        }
        logger.error("alarm webhook failed after every attempt; check alarm.webhook", metadata: ["url": "\(url)"])
    }

    private func execute(_ command: [String], stdin body: Data) async {
        guard let program = command.first else { return }
        for attempt in 1...attempts {
            let status = await Self.run(program: program, arguments: Array(command.dropFirst()), stdin: body)
            switch status {
            case .success(0):
                logger.info("alarm command ran", metadata: ["command": "\(program)"])
                return
            case let .success(code):
                logger.warning("alarm command failed", metadata: ["command": "\(program)", "exitStatus": "\(code)", "attempt": "\(attempt)"])
            case let .failure(error):
                logger.warning("alarm command could not start", metadata: ["command": "\(program)", "error": "\(error)", "attempt": "\(attempt)"])
            }
            if attempt < attempts { try? await Task.sleep(for: .seconds(Double(attempt))) }
        }
        logger.error("alarm command failed after every attempt; check alarm.command", metadata: ["command": "\(program)"])
    }

    /// Runs the program to completion off the cooperative pool; the JSON goes in on stdin.
    private static func run(program: String, arguments: [String], stdin body: Data) async -> Result<Int32, any Error> {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let process: ChildProcess
                do {
                    process = try ChildProcess.spawn(program, arguments, input: true)
                } catch {
                    continuation.resume(returning: .failure(error))
                    return
                }
                // A program that does not read its stdin must not block us: EPIPE ends the write.
                process.writeInput(Array(body))
                continuation.resume(returning: .success(process.wait()))
            }
        }
    }
}
