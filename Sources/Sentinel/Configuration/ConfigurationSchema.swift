import StrictYAML

/// The keys a sentinel's YAML may hold. Codable ignores unknown keys, so without this a misspelt
/// `intervls:` would silently run the sentinel on defaults; the operator is told the line instead.
indirect enum ConfigurationSchema: Sendable {
    case value
    case mapping([String: ConfigurationSchema])
    case list(of: ConfigurationSchema)

    static let sentinelFile: ConfigurationSchema = .mapping([
        "server": .mapping(["url": .value, "token": .value, "timeout": .value]),
        "stateDirectory": .value,
        "statusDirectory": .value,
        "scanner": .mapping(["backend": .value, "adapter": .value, "resetStuckDiscovery": .value, "startBluetoothd": .value]),
        "intervals": .mapping(["listRefresh": .value, "present": .value]),
        "outbox": .mapping(["maxRows": .value, "batchSize": .value]),
        "ownBikes": .list(of: .mapping(["name": .value, "beacon": .value, "zone": .value])),
        "alarm": .mapping(["webhook": .value, "command": .value]),
        "metrics": .mapping(["host": .value, "port": .value]),
        // `location: fixed`, or this mapping (a scalar passes the check; decoding judges the word).
        "location": .mapping(["gpsd": .mapping(["host": .value, "port": .value]), "maxFixAge": .value, "passInterval": .value]),
        "calibration": .mapping(["rxOffset": .value, "pathLossExponent": .value]),
        "mqtt": .mapping(["url": .value, "prefix": .value, "discovery": .value, "espresense": .value, "name": .value, "caFile": .value, "publishLocation": .value]),
    ])

    /// Throws for the first key the schema does not know, naming its line and the likely intended key.
    func check(_ node: YAMLNode, path: [String] = []) throws {
        switch (self, node.value) {
        case let (.mapping(keys), .mapping(entries)):
            for entry in entries {
                let key = entry.key
                guard let schema = keys[key] else {
                    let known = keys.keys.sorted()
                    let hint = Self.closest(to: key, among: known).map { " (did you mean '\($0)'?)" } ?? ""
                    let place = path.isEmpty ? "at the top level" : "under '\(path.joined(separator: "."))'"
                    throw ConfigurationError.at(
                        line: entry.keyLine, key: (path + [key]).joined(separator: "."),
                        problem: "unknown key\(hint); known keys \(place): \(known.joined(separator: ", "))"
                    )
                }
                try schema.check(entry.value, path: path + [key])
            }
        case let (.list(element), .sequence(sequence)):
            for (index, item) in sequence.enumerated() {
                try element.check(item, path: path.dropLast() + ["\(path.last ?? "")[\(index)]"])
            }
        default:
            // Shape mismatches (a list where a mapping belongs, …) are reported by decoding, with the type.
            break
        }
    }

    /// The node a decoding error's coding path points at, for its line.
    static func node(at codingPath: [any CodingKey], in root: YAMLNode) -> YAMLNode? {
        var node = root
        for key in codingPath {
            if let index = key.intValue, let sequence = node.sequence, sequence.indices.contains(index) {
                node = sequence[index]
            } else if let child = node[key.stringValue] {
                node = child
            } else {
                return node
            }
        }
        return node
    }

    /// The known key within edit distance 2 of a misspelling, if there is one.
    static func closest(to key: String, among known: [String]) -> String? {
        let scored = known.map { ($0, editDistance(key.lowercased(), $0.lowercased())) }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= 2 else { return nil }
        return best.0
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
