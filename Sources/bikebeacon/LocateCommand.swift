import ArgumentParser
import Beacon
import Console
import Durable
#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Locating

struct LocateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "locate",
        abstract: "Locate a tag from several receivers' RSSI: one position and radii per fix.",
        discussion: """
        RECEIVERS.csv has the header `id,x_m,y_m,z_m` and optionally `rssi_1m,exponent` (the \
        receiver's RSSI at 1 m and path-loss exponent as measured on site; leave them empty when \
        not measured, which means a wider radius). Places are metres on any grid, the site's own or \
        a national one such as UTM, with the receivers within 1000 km of one another; fixes are \
        given on the same grid. READINGS.csv has the header \
        `time_s,receiver,rssi_dbm` (extra columns are ignored), one reading per line, in any order.

        Prints CSV `time_s,x_m,y_m,radius50_m,radius90_m,receivers`, one line per fix: the tag lies \
        within radius50_m of (x_m, y_m) about half the time and within radius90_m nine times in ten. \
        A fix is made at the first reading at least a second after the previous one, from each \
        receiver's median RSSI of the last 3 s (or its newest, up to 10 s old, as less sure by a \
        walking pace times its age): it uses no reading after its own time. Over the fixes so far \
        it learns a shift common to every level, each uncalibrated or one-point receiver's own \
        shift and, for those same receivers, the site's path-loss exponent, so a long file's later \
        fixes are surer than its first. The server fits a bike's \
        sightings with the same fit, afresh in each window. A reading with an impossible RSSI (0 dBm or more, below -127) is \
        skipped with a warning naming its line; any other bad line is refused, naming the file and \
        line, and nothing is printed. Readings a median of more than 10 s apart per receiver (time_s \
        in milliseconds, say) are located as given, with a warning.

        With --truth, where the tag truly was (header `time_s,x_m,y_m`, on the readings' clock; or \
        READINGS.csv itself when it has `truth_x_m,truth_y_m` columns), each fix is compared with the \
        truth at its time, on a straight line between the samples either side, and a summary goes to \
        standard error: the median and 90th-percentile error, and how often the truth lay within each \
        radius, beside the band a radius that holds exactly would land in on that many fixes. Fixes \
        before the first sample or after the last are not scored.
        """
    )

    @Option(help: ArgumentHelp("The receivers' places and calibration (header id,x_m,y_m,z_m[,rssi_1m,exponent]).", valueName: "RECEIVERS.csv"))
    var receivers: String

    @Argument(help: ArgumentHelp("The readings (header time_s,receiver,rssi_dbm).", valueName: "READINGS.csv"))
    var readings: String

    @Option(help: ArgumentHelp("Where the tag truly was (header time_s,x_m,y_m, or truth_x_m,truth_y_m): how the fixes and radii held goes to standard error.",
                               valueName: "TRUTH.csv"))
    var truth: String?

    func run() throws {
        let receiverList: [Receiver]
        do {
            receiverList = try LocateCSV.receivers(try Self.read(receivers))
        } catch let error as LocateCSVError {
            throw LocateFailure(message: "\(receivers) \(error.description); nothing was located")
        }
        let input: LocateCSV.Readings
        do {
            input = try LocateCSV.readings(try Self.read(readings), known: Set(receiverList.map(\.id)))
        } catch let error as LocateCSVError {
            throw LocateFailure(message: "\(readings) \(error.description); nothing was located")
        }
        let truthTrack: TruthTrack?
        do {
            truthTrack = try truth.map { path throws in try LocateCSV.truth(try Self.read(path)) }
        } catch let error as LocateCSVError {
            throw LocateFailure(message: "\(truth ?? "") \(error.description); nothing was located")
        }
        let frame = SiteFrame(receiverList)
        var locator: Locator
        do {
            locator = try Locator(receivers: frame.local(receiverList))
        } catch .position(let receiver) {
            throw LocateFailure(message: "\(receivers): receiver `\(receiver)` lies more than \(Int(Receiver.farthest / 1000)) km from the middle of the receivers' places; "
                                + "give every place in metres on one grid")
        } catch {
            throw LocateFailure(message: "\(receivers): \(error.description)")
        }
        for skipped in input.skipped.prefix(Self.skipsShown) {
            Terminal.write("Warning: \(readings) \(skipped.description)\n", to: STDERR_FILENO)
        }
        if input.skipped.count > Self.skipsShown {
            Terminal.write("Warning: \(readings): \(input.skipped.count - Self.skipsShown) more readings skipped for an impossible RSSI\n", to: STDERR_FILENO)
        }
        let kept = locator.configuration.longestWindow
        if let gap = input.typicalGap, gap > kept {
            Terminal.write("Warning: \(readings): a receiver's readings are a median \(DecimalText.fixed(gap, 1)) s apart, and a level is kept \(DecimalText.fixed(kept, 0)) s, "
                           + "so most fixes rest on one receiver or none; if time_s is in milliseconds, divide it by 1000\n", to: STDERR_FILENO)
        }
        var output = LocateCSV.fixHeader + "\n"
        var fixes: [Fix] = []
        for row in input.rows {
            do {
                guard var fix = try locator.add(row.reading) else { continue }
                fix.point = frame.site(fix.point)
                output += LocateCSV.line(fix) + "\n"
                fixes.append(fix)
            } catch {
                throw LocateFailure(message: "\(readings) line \(row.line): \(error.description); nothing was located")
            }
        }
        Terminal.write(output)
        if let truth, let truthTrack { Terminal.write(Self.summary(truthTrack, fixes: fixes, path: truth) + "\n", to: STDERR_FILENO) }
    }

    /// How the fixes fared against the truth, in words; a warning when none falls within its times.
    static func summary(_ truth: TruthTrack, fixes: [Fix], path: String) -> String {
        let (score, unscored) = truth.score(fixes)
        let outside = unscored > 0 ? " (\(unscored) outside its times, not scored)" : ""
        guard let inside50 = score.inside50, let inside90 = score.inside90 else {
            let times = [truth.samples.first, truth.samples.last].compactMap { $0.map { DecimalText.fixed($0.time, 1) } }.joined(separator: " to ")
            let located = [fixes.first, fixes.last].compactMap { $0.map { DecimalText.fixed($0.time, 1) } }.joined(separator: " to ")
            return "Warning: \(path): no fix falls within its times (\(times) s; the fixes' are \(located.isEmpty ? "none" : located + " s")), "
                + "so none was scored; are the truth and the readings on the same clock?"
        }
        func percent(_ share: Double) -> String { DecimalText.fixed(share * 100, 0) + " %" }
        func band(_ target: Double, _ chance: Double?) -> String {
            let width = chance ?? 0
            return DecimalText.fixed(max(0, target - width) * 100, 0) + "–" + DecimalText.fixed(min(1, target + width) * 100, 0) + " %"
        }
        return "Scored \(score.fixes) fixes against \(path)\(outside): median error \(DecimalText.fixed(score.median, 2)) m, "
            + "90 % within \(DecimalText.fixed(score.p90, 2)) m. The truth lay within radius50 at \(percent(inside50)) of fixes "
            + "and within radius90 at \(percent(inside90)); radii that hold exactly would give \(band(0.5, score.chance50)) "
            + "and \(band(0.9, score.chance90)) on fixes this many (and this alike from one to the next)."
    }

    /// Skipped readings named one by one up to this many; the rest counted.
    static let skipsShown = 20

    static func read(_ path: String) throws -> String {
        do {
            return String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
        } catch {
            throw LocateFailure(message: "cannot read \(path): \(IOErrorText.describe(error))")
        }
    }
}

/// A refused input file: printed as `Error: <message>`, exit status 1, without the usage text.
private struct LocateFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
