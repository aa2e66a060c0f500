import Foundation

/// Free text in request bodies may hold any character but NUL: PostgreSQL cannot store one in TEXT (the insert
/// fails, a 500) and SQLite would cut C strings at it. Pure: checks the body's JSON once it has decoded.
enum TextFields {
    /// The path of the first string (value or key) in `json` that holds a NUL, as `sightings[2].zone`; nil when none does.
    static func fieldWithNUL(in json: Data) -> String? {
        // Only a body with the escape can hold one: JSON refuses a raw control character inside a string.
        guard json.range(of: Data(#"\u0000"#.utf8)) != nil,
              let value = try? JSONSerialization.jsonObject(with: json, options: [.fragmentsAllowed]) else { return nil }
        return find(in: value, path: "")
    }

    private static func find(in value: Any, path: String) -> String? {
        switch value {
        case let text as String:
            return text.contains("\u{0}") ? (path.isEmpty ? "body" : path) : nil
        case let object as [String: Any]:
            for (key, child) in object.sorted(by: { $0.key < $1.key }) {
                let childPath = path.isEmpty ? key : path + "." + key
                if key.contains("\u{0}") { return childPath }
                if let found = find(in: child, path: childPath) { return found }
            }
            return nil
        case let array as [Any]:
            for (index, child) in array.enumerated() {
                if let found = find(in: child, path: path + "[\(index)]") { return found }
            }
            return nil
        default:
            return nil
        }
    }
}
