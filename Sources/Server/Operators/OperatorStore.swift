import Foundation
import SQLKit

/// Operator accounts: owners who may also see the whole network (`bikebeacon-server operators add EMAIL`).
public struct OperatorStore: Sendable {
    let database: Database

    public init(database: Database) { self.database = database }

    /// Makes the account with `email` an operator; the account must exist (it signs up on the dashboard first).
    public func add(email: String, now: Int64) async throws {
        let email = email.trimmingCharacters(in: .whitespaces).lowercased()
        try await database.transaction { db in
            guard let id = try await db.raw("SELECT id FROM accounts WHERE email = \(bind: email)").first()?.decode(column: "id", as: String.self) else {
                throw SentinelError.invalid("no account with the e-mail '\(email)'; the operator signs up on the dashboard first")
            }
            try await db.raw("INSERT INTO operators (account_id, created_ms) VALUES (\(bind: id), \(bind: now)) ON CONFLICT (account_id) DO NOTHING").run()
        }
    }

    /// Takes the operator's rights away; the account stays.
    public func remove(email: String) async throws {
        let email = email.trimmingCharacters(in: .whitespaces).lowercased()
        let removed = try await database.withSession { db in
            try await db.raw("""
                DELETE FROM operators WHERE account_id IN (SELECT id FROM accounts WHERE email = \(bind: email)) RETURNING account_id
                """).first() != nil
        }
        guard removed else { throw SentinelError.invalid("'\(email)' is not an operator; 'operators list' shows them") }
    }

    /// The operators' e-mails, sorted.
    public func list() async throws -> [String] {
        try await database.withSession { db in
            try await db.raw("SELECT a.email FROM operators o JOIN accounts a ON a.id = o.account_id ORDER BY a.email").all()
                .map { try $0.decode(column: "email", as: String.self) }
        }
    }

    func isOperator(accountID: String) async throws -> Bool {
        try await database.withSession { db in
            try await db.raw("SELECT account_id FROM operators WHERE account_id = \(bind: accountID)").first() != nil
        }
    }
}
