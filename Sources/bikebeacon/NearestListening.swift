import Beacon
import Console
import Owners
import Scanning

/// The shell of `bikes add --nearest`: hears tags for a while, then lets the owner confirm when
/// two are too close to tell apart.
enum NearestListening {
    /// Live: `seconds` of scanning (Ctrl-C ends it early). A replay is read at full speed, its
    /// first `seconds` of capture time, so a test gets the same answer on any machine.
    static func listen(_ scanner: any Scanning.Scanner, seconds: Double, replay: Bool) async -> (heard: NearestTag, failure: (any Error)?) {
        let result: (NearestTag, (any Error)?) = await Interruption.run(duration: replay ? nil : seconds) {
            var heard = NearestTag()
            var start: Double?
            do {
                reading: for try await batch in scanner.advertisementBatches() {
                    for advertisement in batch {
                        let first = start ?? advertisement.time
                        start = first
                        if replay, advertisement.time - first > seconds { break reading }
                        heard.record(advertisement)
                    }
                }
                return (heard, nil)
            } catch is CancellationError {
                return (heard, nil)
            } catch {
                return (heard, error)
            }
        }
        if let hci = scanner as? HCIScanner { await hci.waitUntilStopped() }
        return result
    }

    /// The tag to add, asking on stdin when the loudest ones are close; throws what to do instead.
    static func pick(_ choice: NearestTag.Choice, bike: String, known: Int) throws(BikeChoice.Failure) -> BeaconID {
        let skipped = known == 0 ? "" : " (tags already on your bikes are left out)"
        switch choice {
        case .nothingHeard:
            throw BikeChoice.Failure("no iBeacon heard\(skipped): wake the tag (press its button or shake it), hold it next to this computer and try again, or add it with --beacon")
        case .one(let tag):
            StandardError.line("nearest tag: \(tag.beacon), median \(DecimalText.fixed(tag.medianRSSI, 1)) dBm over \(tag.readings) readings")
            return tag.beacon
        case .close(let tags):
            StandardError.line("\(tags.count) tags are within \(Int(NearestTag.closeWithin)) dB of each other\(skipped):")
            for (index, tag) in tags.enumerated() {
                StandardError.line("  \(index + 1)) \(tag.beacon)  median \(DecimalText.fixed(tag.medianRSSI, 1)) dBm, \(tag.readings) readings")
            }
            StandardError.line("which one is on \(bike)? 1-\(tags.count), Enter to cancel: ")
            guard let answer = readLine(strippingNewline: true), let number = Int(answer.filter { $0 != " " }),
                  tags.indices.contains(number - 1)
            else {
                throw BikeChoice.Failure("no tag chosen: move the other tags away (or hold this one closer) and run again, or add it with --beacon UUID:MAJOR:MINOR")
            }
            return tags[number - 1].beacon
        }
    }
}
