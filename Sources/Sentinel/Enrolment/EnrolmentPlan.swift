import BikebeaconAPI
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why `bikebeacon enroll` stopped, said to the operator at the Pi: what happened, what to do.
public enum EnrolmentError: Error, CustomStringConvertible, Equatable, Sendable {
    case badTarget(String)
    case configExists(path: String)
    case cannotWrite(String)
    case radioSilent(String)
    case unreachable(server: String, reason: String)
    case refused(status: UInt, message: String)
    case badAnswer(String)
    case unitNotStarted(String)

    public var description: String {
        switch self {
        case let .badTarget(why): why
        case let .configExists(path):
            "\(path) already holds a sentinel's settings; nothing was changed and the code was not used. Pass --replace to overwrite it (its token stops being used), or --config for another file"
        case let .cannotWrite(why): why
        case let .radioSilent(why):
            "\(why); nothing was written and the code was not used. Check `bluetoothctl show` and `systemctl status bluetooth`, or pass --force to enrol anyway (--skip-radio-check on a machine without Bluetooth)"
        case let .unreachable(server, reason):
            "cannot reach the server at \(server) (\(reason)); nothing was written and the code was not used. Check the address and this Pi's network"
        case let .refused(status, message):
            "the server refused the code (HTTP \(status)): \(message); nothing was written"
        case let .badAnswer(why): "the server's answer was not an enrolment (\(why)); nothing was written. Is the address a bikebeacon server?"
        case let .unitNotStarted(why):
            "the configuration is written, but the sentinel did not start (\(why)): run `sudo systemctl enable --now bikebeacon-sentinel`, then `journalctl -u bikebeacon-sentinel`"
        }
    }
}

/// The decisions of `bikebeacon enroll`, apart from its I/O: whether a config may be written, what the
/// radio check means, what the server's answer means, and the config itself. Pure.
public enum EnrolmentPlan {
    /// What the config path holds before enrolling.
    public enum Existing: Sendable, Equatable {
        case absent
        /// The package's example, whose token is still the placeholder: nothing of the operator's to keep.
        case shippedExample
        case configured
    }

    public static let placeholderToken = "REPLACE-WITH-THE-SENTINEL-TOKEN"

    public static func classify(existing text: String?) -> Existing {
        guard let text else { return .absent }
        return text.contains(placeholderToken) ? .shippedExample : .configured
    }

    /// Checked before the code is spent, so a refusal leaves the code usable.
    public static func mayWrite(_ existing: Existing, replace: Bool, path: String) throws(EnrolmentError) {
        if existing == .configured, !replace { throw .configExists(path: path) }
    }

    /// Seconds the radio check listens.
    public static let radioCheckSeconds = 10

    /// The radio check's verdict: the line to print, or the refusal. `reports` counts every BLE report
    /// heard (phones, watches, tags: anything), nil when the scanner could not listen (`failure` says why).
    public static func radio(reports: Int?, failure: String?, force: Bool) throws(EnrolmentError) -> String {
        let problem: String
        if let reports, reports > 0 {
            return "radio: \(reports) Bluetooth LE reports heard in \(radioCheckSeconds) s"
        } else if reports != nil {
            problem = "the radio heard no Bluetooth LE report in \(radioCheckSeconds) s (a working radio hears the phones and watches around it)"
        } else {
            // Scanner errors end in a full stop; the sentence goes on.
            problem = "the radio could not listen: \(String((failure ?? "unknown error").reversed().drop { $0 == "." }.reversed()))"
        }
        guard force else { throw .radioSilent(problem) }
        return "warning: \(problem); enrolling anyway (--force)"
    }

    /// What the server's answer to `POST /v1/sentinel/enrol` means; `body` is its JSON.
    public static func answer(status: UInt, body: Data) throws(EnrolmentError) -> SentinelEnrolment {
        guard status == 200 else {
            let message = (try? JSONDecoder().decode(ErrorBody.self, from: body))?.message
                ?? String(decoding: body.prefix(200), as: UTF8.self)
            throw .refused(status: status, message: message)
        }
        guard let enrolment = try? JSONDecoder().decode(SentinelEnrolment.self, from: body) else {
            throw .badAnswer("no token in it")
        }
        guard !enrolment.token.isEmpty, enrolment.token.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "_-".contains($0)) }) else {
            throw .badAnswer("the token has characters a token never has")
        }
        return enrolment
    }

    /// The sentinel's config: the server it was enrolled on, its token, the scanner, and where its
    /// sightings are placed (gpsd's fix for a roaming sentinel). Everything else takes its defaults.
    public static func configText(_ enrolment: SentinelEnrolment, serverURL: String, backend: SentinelConfiguration.Backend,
                                  adapter: String?) -> String {
        let name = enrolment.name.map { $0.isNewline ? " " : $0 }
        let place = enrolment.place.map { "at \($0.latitude), \($0.longitude)" } ?? "roaming"
        var lines = [
            "# Written by `bikebeacon enroll` for the sentinel '\(String(name))' (\(place)).",
            "# Every key: /usr/share/doc/bikebeacon-sentinel or `bikebeacon sentinel --help`; check edits with",
            "# `bikebeacon sentinel --check-config /etc/bikebeacon/sentinel.yaml`.",
            "server:",
            "  url: \(quoted(serverURL))",
            "  token: \(quoted(enrolment.token))",
            "scanner:",
            "  backend: \(backend.rawValue)",
        ]
        if let adapter { lines.append("  adapter: \(quoted(adapter))") }
        if enrolment.roaming {
            lines += ["# A roaming sentinel: each sighting is placed at the fix gpsd gives.", "location:", "  gpsd: {host: 127.0.0.1, port: 2947}"]
        } else {
            lines.append("location: fixed")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A double-quoted YAML scalar.
    static func quoted(_ text: String) -> String {
        "\"" + text.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\""
    }

    /// The two-point calibration, as the sentinel's own notice gives it, for a tag not yet known.
    public static let calibration = [
        "calibrate this site's path loss (optional; the own-bike alarm's 3 m boundary rests on it): hold a tag still 1 m from this Pi and run",
        "  bikebeacon calibrate --beacon UUID:MAJOR:MINOR --distance 1",
        "then at 3 m, with the RSSI the first printed:",
        "  bikebeacon calibrate --beacon UUID:MAJOR:MINOR --distance 3 --other-point 1=RSSI --save sentinel",
        "and paste the calibration: block it prints into the config.",
    ]
}
