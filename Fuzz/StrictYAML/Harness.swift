/// libFuzzer entry: any bytes as a YAML file for the sentinel's strict reader. It returns a tree or
/// a `YAMLError`, never crashes or hangs; a tree keeps its promises (lines inside the text, no
/// duplicate keys, nesting within the limit) and decodes through `YAMLNodeDecoder` as plain values.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzStrictYAML(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    // Lines as the reader counts them: line feeds (Swift's Characters would fold "\r\n" into one).
    let lines = text.utf8.reduce(1) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
    let root: YAMLNode?
    do {
        root = try YAMLReader.parse(text)
    } catch {
        precondition((0...lines + 1).contains(error.line), "error on line \(error.line) of a \(lines)-line text: \(error)")
        precondition(!error.message.isEmpty, "an error without a message")
        return 0
    }
    guard let root else { return 0 }
    check(root, depth: 1, lines: lines)
    do {
        _ = try YAMLNodeDecoder().decode(Anything.self, from: root)
    } catch {
        preconditionFailure("a tree the reader returned does not decode as plain values: \(error)")
    }
    return 0
}

private func check(_ node: YAMLNode, depth: Int, lines: Int) {
    precondition((1...max(lines, 1)).contains(node.line), "a node on line \(node.line) of a \(lines)-line text")
    precondition(depth <= YAMLReader.maximumDepth + 1, "nesting \(depth) deep passed the limit of \(YAMLReader.maximumDepth)")
    switch node.value {
    case .scalar:
        break
    case let .sequence(items):
        for item in items { check(item, depth: depth + 1, lines: lines) }
    case let .mapping(entries):
        precondition(Set(entries.map(\.key)).count == entries.count, "a mapping with a duplicate key: \(entries.map(\.key))")
        for entry in entries {
            precondition((1...max(lines, 1)).contains(entry.keyLine), "a key on line \(entry.keyLine) of a \(lines)-line text")
            check(entry.value, depth: depth + 1, lines: lines)
        }
    }
}

/// Whatever the tree holds, read through the decoder's three containers.
private indirect enum Anything: Decodable {
    case mapping([String: Anything]), list([Anything]), text(String), null

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: Key.self) {
            var values: [String: Anything] = [:]
            for key in keyed.allKeys { values[key.stringValue] = try keyed.decode(Anything.self, forKey: key) }
            self = .mapping(values)
        } else if var list = try? decoder.unkeyedContainer() {
            var items: [Anything] = []
            while !list.isAtEnd { items.append(try list.decode(Anything.self)) }
            self = .list(items)
        } else {
            let single = try decoder.singleValueContainer()
            if single.decodeNil() {
                self = .null
                return
            }
            _ = try? single.decode(Bool.self)
            _ = try? single.decode(Int.self)
            _ = try? single.decode(Double.self)
            self = .text(try single.decode(String.self))
        }
    }
}
