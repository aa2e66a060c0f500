import SQLKit

extension SQLRow {
    /// A nullable column without SQLiteKit's decoder for `Optional` (a class allocated and two dynamic casts a
    /// column): an estimate on ingest decodes a few hundred of them.
    func decodeOptional<D: Decodable>(column: String, as type: D.Type) throws -> D? {
        try decodeNil(column: column) ? nil : decode(column: column, as: type)
    }
}
