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
        not measured, which means a wider radius). READINGS.csv has the header \
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
        """
    )

    @Option(help: ArgumentHelp("The receivers' places and calibration (header id,x_m,y_m,z_m[,rssi_1m,exponent]).", valueName: "RECEIVERS.csv"))
    var receivers: String

    @Argument(help: ArgumentHelp("The readings (header time_s,receiver,rssi_dbm).", valueName: "READINGS.csv"))
    var readings: String

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
        var locator: Locator
        do {
            locator = try Locator(receivers: receiverList)
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
        for row in input.rows {
            do {
                if let fix = try locator.add(row.reading) { output += LocateCSV.line(fix) + "\n" }
            } catch {
                throw LocateFailure(message: "\(readings) line \(row.line): \(error.description); nothing was located")
            }
        }
        Terminal.write(output)
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
