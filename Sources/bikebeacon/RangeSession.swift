import Beacon
import Foundation
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
                for report in await state.lapse() { Self.emit(report) }
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
            for try await advertisement in scanner.advertisements() {
                if let wait = await state.secondsUntilDue(advertisement.time), wait > 0 {
                    try await Task.sleep(for: .seconds(wait))
                }
                emit(await state.receive(advertisement))
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

/// The state the reader and the timer share. Time is the wall clock when live; in a replay it
/// is the capture's time, advanced `speed` times faster than real time from the first record.
actor RangeState {
    private var feed: RangeFeed
    private let speed: Double?
    private var replay: ReplayClock?
    /// In a replay, the time of the record the reader holds until it is due; nil while it reads the next.
    private var pending: Double?
    private var replayFinished = false
    private let started = ContinuousClock.now

    init(feed: RangeFeed, speed: Double?) {
        self.feed = feed
        self.speed = speed
    }

    private var elapsed: Double {
        let duration = ContinuousClock.now - started
        return Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }

    /// The instant the view shows.
    var now: Double {
        replay?.captureTime(elapsed: elapsed) ?? Date().timeIntervalSince1970
    }

    /// In a replay, real seconds until a record stamped `time` is due; nil when live.
    func secondsUntilDue(_ time: Double) -> Double? {
        guard let speed else { return nil }
        guard let replay else {
            self.replay = ReplayClock(origin: time - elapsed * speed, speed: speed)
            return 0
        }
        pending = time
        return replay.elapsed(until: time) - elapsed
    }

    func receive(_ advertisement: Advertisement) -> [RangeReport] {
        pending = nil
        return feed.receive(advertisement)
    }

    func finishReplay() {
        replayFinished = true
    }

    /// Reports the bike out of range once it has gone stale. In a replay the capture, not the clock,
    /// says what was heard: a reader slowed down by a busy machine must not make a bike that was
    /// heard look lost, so staleness is judged only up to the record the reader holds.
    func lapse() -> [RangeReport] {
        guard speed != nil, !replayFinished else { return feed.lapse(until: now) }
        guard let pending else { return [] }
        return feed.lapse(until: min(now, pending))
    }

    func view(notice: String?) -> RangeView {
        feed.view(at: now, notice: notice)
    }
}
