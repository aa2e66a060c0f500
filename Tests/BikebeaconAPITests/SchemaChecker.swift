import BikebeaconAPI
import Foundation

/// Checks JSON values against the schemas of an OpenAPI document (the subset this API uses:
/// `$ref`, `type` (one or a list), `required`, `properties`, `items`, `enum`, `minimum`,
/// `maximum`, `maxItems`, `oneOf`, `allOf` and the `uuid` and `date-time` formats).
/// Properties a schema does not declare are an error: the spec must name every field.
struct SchemaChecker {
    let schemas: [String: [String: Any]]

    init(document: [String: Any]) throws {
        guard let components = document["components"] as? [String: Any],
              let schemas = components["schemas"] as? [String: Any] else { throw Failure("the document has no components.schemas") }
        self.schemas = schemas.compactMapValues { $0 as? [String: Any] }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// Problems of `value` against the named schema; empty when it conforms.
    /// `complete`: every declared property must also be present (for samples with every optional field set).
    func problems(_ value: JSONValue, schema name: String, complete: Bool) -> [String] {
        guard let schema = schemas[name] else { return ["no schema \(name)"] }
        return problems(value, schema, at: name, complete: complete)
    }

    private func problems(_ value: JSONValue, _ schema: [String: Any], at path: String, complete: Bool) -> [String] {
        if let ref = schema["$ref"] as? String {
            let name = String(ref.split(separator: "/").last ?? "")
            guard let target = schemas[name] else { return ["\(path): unresolved \(ref)"] }
            return problems(value, target, at: path, complete: complete)
        }
        var found: [String] = []
        if let all = schema["allOf"] as? [[String: Any]] {
            for part in all { found += problems(value, part, at: path, complete: complete) }
        }
        if let one = schema["oneOf"] as? [[String: Any]],
           !one.contains(where: { problems(value, $0, at: path, complete: complete).isEmpty }) {
            found.append("\(path): matches none of oneOf")
        }
        if let declared = Self.types(schema["type"]), declared.isDisjoint(with: value.schemaTypes) {
            return found + ["\(path): is \(value.schemaTypes.sorted()), the spec says \(declared.sorted())"]
        }
        if let allowed = schema["enum"] as? [Any] {
            let texts = allowed.map { "\($0)" }
            if let text = value.scalarText, !texts.contains(text) { found.append("\(path): '\(text)' is not one of \(texts)") }
        }
        found += bounds(value, schema, at: path)
        found += format(value, schema, at: path)
        switch value {
        case let .object(fields):
            let properties = (schema["properties"] as? [String: Any])?.compactMapValues { $0 as? [String: Any] } ?? [:]
            let required = schema["required"] as? [String] ?? []
            for key in required where fields[key] == nil { found.append("\(path): required '\(key)' is missing") }
            // A bare `{required: …}` inside allOf adds no properties of its own.
            guard schema["properties"] != nil else { break }
            for (key, field) in fields {
                guard let property = properties[key] else {
                    found.append("\(path): '\(key)' is not in the spec")
                    continue
                }
                found += problems(field, property, at: "\(path).\(key)", complete: complete)
            }
            if complete {
                for key in properties.keys where fields[key] == nil { found.append("\(path): '\(key)' is in the spec but the sample has none") }
            }
        case let .array(items):
            if let itemSchema = schema["items"] as? [String: Any] {
                for (index, item) in items.enumerated() {
                    found += problems(item, itemSchema, at: "\(path)[\(index)]", complete: complete)
                }
            }
            if let max = schema["maxItems"] as? Int, items.count > max { found.append("\(path): more than \(max) items") }
        default:
            break
        }
        return found
    }

    private static func types(_ raw: Any?) -> Set<String>? {
        if let one = raw as? String { return [one] }
        if let many = raw as? [Any] { return Set(many.map { "\($0)" }) }
        return nil
    }

    private func bounds(_ value: JSONValue, _ schema: [String: Any], at path: String) -> [String] {
        let number: Double
        switch value {
        case let .integer(int): number = Double(int)
        case let .number(double): number = double
        default: return []
        }
        var found: [String] = []
        if let minimum = Self.double(schema["minimum"]), number < minimum { found.append("\(path): \(number) < minimum \(minimum)") }
        if let maximum = Self.double(schema["maximum"]), number > maximum { found.append("\(path): \(number) > maximum \(maximum)") }
        return found
    }

    private static func double(_ raw: Any?) -> Double? {
        switch raw {
        case let int as Int: Double(int)
        case let double as Double: double
        default: nil
        }
    }

    private func format(_ value: JSONValue, _ schema: [String: Any], at path: String) -> [String] {
        guard case let .string(text) = value, let format = schema["format"] as? String else { return [] }
        switch format {
        case "uuid" where UUID(uuidString: text) == nil: return ["\(path): '\(text)' is not a UUID"]
        case "date-time" where Timestamp.parse(text) == nil: return ["\(path): '\(text)' is not an RFC 3339 date-time"]
        default: return []
        }
    }
}
