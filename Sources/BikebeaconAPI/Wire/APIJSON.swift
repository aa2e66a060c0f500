#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The API's JSON conventions, for every side that writes it: sorted keys (stable bytes for
/// webhook signatures and tests), slashes left unescaped (URLs stay readable).
public enum APIJSON {
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
