import Beacon
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Console
import Owners
import Scanning

/// The imperative shell of `bikebeacon range`: reads the scanner, paces a replay, feeds the
/// pure `RangeFeed`, and on a timer either redraws the screen or writes JSON lines.
struct RangeSession: Sendable {
    /// Redraws per second on a terminal (the issue asks for at least two).
    static let refresh: Duration = .milliseconds(250)

    let state: RangeState
    let scanner: any Scanning.Scanner
    /// Replay speed, nil when scanning live.
    let speed: Double?
    let board: NoticeBoard

    init(feed: RangeFeed, scanner: any Scanning.Scanner, speed: Double?, board: NoticeBoard) {
        self.state = RangeState(feed: feed, speed: speed)
        self.scanner = scanner
        self.speed = speed
        self.board = board
    }

    /// The full-screen view until Ctrl-C/SIGTERM or a scanner failure; the terminal is put back
    /// on every path out. Returns the failure to report once the normal screen is back.
    func runScreen(terminal: Terminal) async -> String? {
        terminal.enter()
        defer { terminal.leave() }
        return await Interruption.run(duration: nil) {
            await run(keepShowingAfterEnd: true) {
                terminal.draw(RangeScreen.render(await state.view(notice: board.current), glyphs: terminal.style.glyphs))
            } emit: { _ in }
        }
    }

    /// JSON lines until the source ends (a replay) or Ctrl-C/SIGTERM.
    func runLines() async -> String? {
        await Interruption.run(duration: nil) {
            await run(keepShowingAfterEnd: false) {
                for report in await state.lapse(pastTheEnd: false) { Self.emit(report) }
            } emit: { reports in
                for report in reports { Self.emit(report) }
            }
        }
    }

    private enum Outcome: Sendable {
        case ended
        case failed(String)
        case stopped
    }

    /// Runs the reader and the timer side by side; returns the reader's failure, if any.
    private func run(keepShowingAfterEnd: Bool, tick: @escaping @Sendable () async -> Void, emit: @escaping @Sendable ([RangeReport]) -> Void) async -> String? {
        await withTaskGroup(of: Outcome.self) { group in
            group.addTask { await read(emit: emit) }
            group.addTask {
                while !Task.isCancelled {
                    await tick()
                    do { try await Task.sleep(for: Self.refresh) } catch { break }
                }
                return .stopped
            }
            var failure: String?
            for await outcome in group {
                switch outcome {
                case .failed(let message):
                    failure = message
                    group.cancelAll()
                case .ended:
                    if keepShowingAfterEnd, speed != nil {
                        board.post("replay finished: the clock runs on; Ctrl-C to quit")
                    } else {
                        group.cancelAll()
                    }
                case .stopped:
                    break
                }
            }
            return failure
        }
    }

    /// Reads advertisements, waiting in a replay until each one is due.
    private func read(emit: @Sendable ([RangeReport]) -> Void) async -> Outcome {
        do {
            for try await batch in scanner.advertisementBatches() {
                for advertisement in batch {
                    if let wait = await state.secondsUntilDue(advertisement.time), wait > 0 {
                        try await Task.sleep(for: .seconds(wait))
                    }
                    emit(await state.receive(advertisement))
                }
            }
            await state.finishReplay()
            return Task.isCancelled ? .stopped : .ended
        } catch is CancellationError {
            return .stopped
        } catch {
            return .failed("\(error)")
        }
    }

    private static func emit(_ report: RangeReport) {
        Terminal.write(report.jsonLine + "\n")
    }
}
