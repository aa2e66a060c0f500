import ArgumentParser
import Benchmarks
import Foundation
import Locating

struct LocateBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "locate",
        abstract: "The locator against the anchors on the philotuxo tracks, leaving one track out.",
        discussion: """
        For each of the 9 tracks, each receiver's path-loss model (RSSI against log true \
        distance), the locator's prior and smoothing, and its radius scales are chosen on the \
        other 8 tracks only; then the locator and the anchors (nearest receiver as Bermuda, \
        RSSI-weighted centroid, ESPresense-companion's Nelder-Mead, Gauss-Newton) are scored on \
        the held-out track, on the same causal fixes. Errors are horizontal metres; in50/in90 are \
        the shares of fixes whose truth lies within radius50/radius90. The radius scales for fewer \
        receivers are measured on sets of them laid out as a site's are, around where its tags go. Last, the shipped defaults \
        run on sites none of them saw: four layouts where a tag walks, each receiver's RSSI drawn \
        from another set's readings at the distance measured nearest the tag's (airtag-nrf52, \
        pcng, lanfer and herald: other tags, radios and rooms; the layouts shrunk to a set's \
        reach). --write-csv DIR also writes \
        each track as `bikebeacon locate` reads it: DIR/<track>.receivers.csv (models fitted on \
        the other tracks) and DIR/<track>.readings.csv (with the truth in extra columns, which \
        `bikebeacon locate --truth` reads).
        """
    )

    @Option(help: "Folder holding philotuxo/ (the shared RSSI data).")
    var data = BikebeaconBench.sharedRSSI

    @Option(help: "Also write each track's receivers and readings as `bikebeacon locate` reads them, into this folder.")
    var writeCsv: String?

    func run() throws {
        let dataset: PhilotuxoPositions
        do {
            dataset = try PhilotuxoPositions.load(dataDirectory: URL(fileURLWithPath: data))
        } catch {
            throw ValidationError("cannot read \(data)/philotuxo/\(PhilotuxoTracks.fileName): \(error). Pass --data with the folder holding philotuxo/.")
        }
        let result = LocateBench.run(dataset)
        print("bench locate: philotuxo, \(dataset.tracks.count) tracks, \(dataset.sensors.count) receivers, leave one track out; errors in metres")
        print(Self.table(result))
        print("")
        print("ours on the same held-out tracks as a site we never saw would give them (median error m, in50, in90; constants chosen with and without calibration, on none of the last three):")
        print(Self.conditions(result, LocateBench.Condition.otherSites))
        print("")
        print("ours on the same held-out tracks with less to go on: \(LocateBench.Condition.subsetRuns) sets of 3 or 6 receivers, laid out as a site's are (from a random one, each next the farthest from those chosen) or drawn at random (the tag then mostly outside them), or each receiver's readings 1 in 4 or 1 in 10 (median error m, in50, in90; then in50, in90 with one radius scale for any count of receivers, the twelve's):")
        print(Self.conditions(result, LocateBench.Condition.lessToGoOn, oneScale: true))
        print(Self.anchorsOnTheSameFixes(result))
        print("")
        let fixes = LocateBench.Condition.fasterTags.compactMap { Self.column($0).map { String(result.allConditions[$0].fixes) } }
        print("ours on the same held-out tracks with the tag passing faster: the track's time divided by 4 or 10, each receiver's readings kept 1 in 4 or 1 in 10 so it reports as often (median error m, in50, in90; \(fixes.joined(separator: " and ")) fixes over all tracks):")
        print(Self.conditions(result, LocateBench.Condition.fasterTags))
        print("")
        print(Self.borrowedSite(data: data))
        print("")
        print(Self.chosen(result))
        print(Self.speed(result))
        print(Self.verdict(result))
        if let writeCsv { try write(dataset, into: writeCsv) }
    }

    /// The shipped defaults on `BorrowedSite` made of each set, or why it could not be made.
    static func borrowedSite(data: String) -> String {
        BorrowedSite.sets.map { source, reach in
            let scale = reach / BorrowedSite.fullReach
            let size = scale < 1 ? ", the layouts shrunk to \(fmt(scale, 2)) of their size (its pairs measured to \(fmt(reach, 1)) m)" : ""
            let intro = "a site none of the constants saw, made of \(source.name)'s readings (\(source.summary), by measured distance)\(size) "
                + "as a tag walking at 1 m/s with pauses would meet them, \(BorrowedSite.seeds) walks of \(Int(BorrowedSite.seconds)) s per layout; "
                + "the shipped defaults (errors in metres; one-point: each receiver's rssi_1m its own median at 1 m):\n"
            let rows: [BorrowedSite.Row]?
            do {
                rows = BorrowedSite.run(try source.load(data), reach: reach)
            } catch {
                return intro + "absent: \(error)"
            }
            guard let rows else { return intro + "absent: \(source.name) has too few pairs measured from 0.5 to \(fmt(reach, 1)) m" }
            let methods = LocateBench.Result.methods
            let header = ["layout", "calibration", "fixes"] + methods.flatMap { ["\($0) med", "p90"] } + ["in50", "±50", "in90", "±90"]
            return intro + Table.render(header: header, rows: rows.map { [$0.layout, $0.calibration, String($0.scores[0].fixes)] + Self.cells($0.scores) })
        }.joined(separator: "\n")
    }

    /// Each method's median and p90, then ours' share within radius50 and radius90 and what chance allows each.
    static func cells(_ scores: [FixScore]) -> [String] {
        let ours = scores[0]
        return scores.flatMap { [fmt($0.median, 2), fmt($0.p90, 2)] }
            + [fmt((ours.inside50 ?? .nan) * 100, 0) + "%", fmt((ours.chance50 ?? .nan) * 100, 0),
               fmt((ours.inside90 ?? .nan) * 100, 0) + "%", fmt((ours.chance90 ?? .nan) * 100, 0)]
    }

    static func table(_ result: LocateBench.Result) -> String {
        let methods = LocateBench.Result.methods
        let header = ["track", "fixes"] + methods.flatMap { ["\($0) med", "p90"] } + ["in50", "±50", "in90", "±90", "r90 med"]
        func row(_ name: String, _ scores: [FixScore]) -> [String] {
            [name, String(scores[0].fixes)] + cells(scores) + [fmt(scores[0].medianRadius90 ?? .nan, 2)]
        }
        return Table.render(header: header, rows: result.tracks.map { row($0.track, $0.scores) } + [row("all tracks", result.all)])
    }

    /// Ours and the anchors without calibration (as a site we never saw would give them) and on the same random
    /// sets of receivers, all tracks, with the tracks where ours is behind the best anchor: fewer receivers leave a
    /// fit less to gain over a centroid.
    static func anchorsOnTheSameFixes(_ result: LocateBench.Result) -> String {
        "the anchors on the same receivers and fixes, without calibration (median error m, all tracks; then the tracks where ours is behind the best anchor):\n"
            + ([.uncalibrated] + LocateBench.Condition.lessToGoOn).compactMap { condition in
                guard let c = column(condition), !result.allConditionAnchors[c].isEmpty else { return nil }
                let scores = [result.allConditions[c]] + result.allConditionAnchors[c]
                let behind = result.tracks.compactMap { track -> String? in
                    let anchors = track.conditionAnchors[c]
                    guard let best = anchors.indices.min(by: { anchors[$0].median < anchors[$1].median }),
                          track.conditions[c].median > anchors[best].median else { return nil }
                    return "\(track.track) \(fmt(track.conditions[c].median, 2)) against \(LocateBench.Result.methods[best + 1])'s \(fmt(anchors[best].median, 2))"
                }
                return "  \(condition.rawValue): " + zip(LocateBench.Result.methods, scores).map { "\($0) \(fmt($1.median, 2))" }.joined(separator: ", ")
                    + "; behind on \(behind.count) of \(result.tracks.count) tracks" + (behind.isEmpty ? "" : " (\(behind.joined(separator: ", ")))")
            }.joined(separator: "\n")
    }

    static func conditions(_ result: LocateBench.Result, _ shown: [LocateBench.Condition], oneScale: Bool = false) -> String {
        let columns = shown.compactMap(Self.column)
        let header = ["track"] + shown.flatMap { ["\($0.rawValue) med", "in50", "in90"] + (oneScale ? ["one scale in50", "in90"] : []) }
        func percent(_ share: Double?) -> String { fmt((share ?? .nan) * 100, 0) + "%" }
        func row(_ name: String, _ scores: [FixScore], _ oneScaleScores: [FixScore]) -> [String] {
            [name] + columns.flatMap { c in
                [fmt(scores[c].median, 2), percent(scores[c].inside50), percent(scores[c].inside90)]
                    + (oneScale ? [percent(oneScaleScores[c].inside50), percent(oneScaleScores[c].inside90)] : [])
            }
        }
        return Table.render(header: header, rows: result.tracks.map { row($0.track, $0.conditions, $0.oneScaleConditions) }
            + [row("all tracks", result.allConditions, result.allOneScaleConditions)])
    }

    /// Where `condition`'s scores are among a result's conditions (every one after the first).
    static func column(_ condition: LocateBench.Condition) -> Int? {
        LocateBench.Condition.allCases.dropFirst().firstIndex(of: condition).map { $0 - 1 }
    }

    static func chosen(_ result: LocateBench.Result) -> String {
        "chosen per fold (prior × median distance, smoothing, r50 and r90 scales with 12 receivers): " + result.tracks.map { track in
            let c = track.chosen
            return "\(track.track) \(Self.describe(c))"
        }.joined(separator: ", ") + "; on all tracks (the shipped defaults): \(Self.describe(result.chosenOnAll))\n"
            + "radius scales on all tracks (r50/r90) for 1, 2, … receivers: "
            + result.chosenOnAll.radiusScales.map { "\(fmt($0.radius50, 2))/\(fmt($0.radius90, 2))" }.joined(separator: " ")
    }

    static func describe(_ c: LocatorConfiguration) -> String {
        let scale = c.radiusScale(receivers: 12)
        return "\(fmt(c.priorScale, 1))/\(fmt(c.smoothing, 1))/\(fmt(scale.radius50, 2))/\(fmt(scale.radius90, 2))"
    }

    static func speed(_ result: LocateBench.Result) -> String {
        let baseline = result.secondsPerEstimate[LocateBench.Result.methods.firstIndex(of: LocateAnchor.centroid.rawValue) ?? 1]
        return "CPU per estimate (getrusage, this run; ours includes grouping the readings): " + zip(LocateBench.Result.methods, result.secondsPerEstimate).map {
            "\($0) \(fmt($1 * 1e6, 1)) µs (\(fmt(baseline > 0 ? $1 / baseline : .nan, 1))× centroid)"
        }.joined(separator: ", ")
    }

    /// Issue 44's targets.
    static func verdict(_ result: LocateBench.Result) -> String {
        let best = result.all.dropFirst().map(\.median).min() ?? .nan
        let gain = 1 - result.all[0].median / best
        let worse = result.tracks.filter { track in track.scores[0].median > (track.scores.dropFirst().map(\.median).min() ?? .infinity) }
        let off90 = result.tracks.filter { !(0.85...0.95).contains($0.scores[0].inside90 ?? -1) }
        let off50 = result.tracks.filter { !(0.40...0.60).contains($0.scores[0].inside50 ?? -1) }
        // Beyond what chance gives a radius that holds exactly on a track this long.
        let far90 = off90.filter { abs(($0.scores[0].inside90 ?? 0) - 0.9) > ($0.scores[0].chance90 ?? 0) }
        let far50 = off50.filter { abs(($0.scores[0].inside50 ?? 0) - 0.5) > ($0.scores[0].chance50 ?? 0) }
        func names(_ tracks: [LocateBench.TrackResult]) -> String { tracks.isEmpty ? "" : " (" + tracks.map(\.track).joined(separator: ", ") + ")" }
        // Fix by fix against that anchor: is the anchor the closer more often than chance allows?
        let beaten = worse.filter { $0.againstBestAnchor.closer < 0.5 - $0.againstBestAnchor.chance }
        let shares = worse.map { track in
            let against = track.againstBestAnchor
            return "\(track.track): \(fmt(track.scores[0].median, 2)) against \(against.anchor)'s "
                + "\(fmt(track.scores.dropFirst().map(\.median).min() ?? .nan, 2)) m, ours the closer on \(fmt(against.closer * 100, 0)) % of its fixes, "
                + "±\(fmt(against.chance * 100, 0)) by chance"
        }
        return "target: median \(fmt(gain * 100, 1)) % below the best anchor's (≥ 15 %: \(gain >= 0.15 ? "met" : "MISSED")); "
            + "worse than the best anchor on \(worse.count) track(s)\(shares.isEmpty ? "" : " (" + shares.joined(separator: "; ") + ")"), "
            + "beyond chance on \(beaten.count)\(names(beaten)); "
            + "r90 outside 85-95 % on \(off90.count)\(names(off90)), beyond chance on \(far90.count)\(names(far90)); "
            + "r50 outside 40-60 % on \(off50.count)\(names(off50)), beyond chance on \(far50.count)\(names(far50)) "
            + "(chance: 95 % of what a radius that holds exactly gives on a track with that many effective fixes, column ±50/±90)"
    }

    func write(_ dataset: PhilotuxoPositions, into folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (index, track) in dataset.tracks.enumerated() {
            let training = dataset.tracks.indices.filter { $0 != index }.map { dataset.tracks[$0] }
            let receivers = LocateBench.calibratedReceivers(dataset.sensors, on: training)
            var text = "id,x_m,y_m,z_m,rssi_1m,exponent\n"
            for (sensor, receiver) in zip(dataset.sensors, receivers) {
                let model: String = if case let .twoPoint(power, exponent) = receiver.calibration { ",\(fmt(power, 2)),\(fmt(exponent, 3))" } else { ",," }
                text += "\(sensor.id),\(sensor.x),\(sensor.y),\(sensor.z)\(model)\n"
            }
            try text.write(toFile: "\(folder)/\(track.name).receivers.csv", atomically: true, encoding: .utf8)
            var readings = "time_s,receiver,rssi_dbm,truth_x_m,truth_y_m\n"
            for row in track.rows {
                readings += "\(row.reading.time),\(row.reading.receiver),\(fmt(row.reading.rssi, 0)),\(row.truth.x),\(row.truth.y)\n"
            }
            try readings.write(toFile: "\(folder)/\(track.name).readings.csv", atomically: true, encoding: .utf8)
        }
        print("wrote \(dataset.tracks.count) tracks' receivers and readings into \(folder) (run: bikebeacon locate --receivers DIR/T.receivers.csv --truth DIR/T.readings.csv DIR/T.readings.csv)")
    }
}
