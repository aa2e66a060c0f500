import SQLKit

/// The schema, as numbered steps applied once each, in order, when the server starts.
///
/// Column types are chosen to mean the same in SQLite and PostgreSQL (TEXT, BIGINT,
/// DOUBLE PRECISION); time is epoch milliseconds. Only the auto-increment key differs.
enum Migrations {
    struct Step: Sendable {
        var version: Int
        var sqlite: [String]
        var postgres: [String]
    }

    static func common(_ version: Int, _ statements: [String]) -> Step {
        Step(version: version, sqlite: statements, postgres: statements)
    }

    static let steps: [Step] = [
        common(1, [
            """
            CREATE TABLE accounts (id TEXT PRIMARY KEY, email TEXT NOT NULL UNIQUE, password_hash TEXT NOT NULL,
              webhook_url TEXT, webhook_secret TEXT, created_ms BIGINT NOT NULL)
            """,
            """
            CREATE TABLE sessions (token_hash TEXT PRIMARY KEY,
              account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE, created_ms BIGINT NOT NULL)
            """,
            "CREATE TABLE login_attempts (email TEXT NOT NULL, time_ms BIGINT NOT NULL)",
            "CREATE INDEX login_attempts_email ON login_attempts (email, time_ms)",
            """
            CREATE TABLE sentinels (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, token_hash TEXT NOT NULL UNIQUE,
              latitude DOUBLE PRECISION NOT NULL, longitude DOUBLE PRECISION NOT NULL, revoked_ms BIGINT,
              created_ms BIGINT NOT NULL)
            """,
            """
            CREATE TABLE bikes (id TEXT PRIMARY KEY, owner_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
              name TEXT NOT NULL, make TEXT NOT NULL, model TEXT NOT NULL, colour TEXT NOT NULL,
              frame_number TEXT NOT NULL, engine_number TEXT NOT NULL, notes TEXT NOT NULL,
              beacon_uuid TEXT NOT NULL, beacon_major BIGINT NOT NULL, beacon_minor BIGINT NOT NULL,
              missing_since_ms BIGINT, created_ms BIGINT NOT NULL, updated_ms BIGINT NOT NULL,
              UNIQUE (beacon_uuid, beacon_major, beacon_minor))
            """,
            "CREATE INDEX bikes_owner ON bikes (owner_id, created_ms)",
            "CREATE TABLE missing_version (id BIGINT PRIMARY KEY, version BIGINT NOT NULL)",
            "INSERT INTO missing_version (id, version) VALUES (1, 0)",
            """
            CREATE TABLE missing_changes (version BIGINT NOT NULL, beacon_uuid TEXT NOT NULL,
              beacon_major BIGINT NOT NULL, beacon_minor BIGINT NOT NULL)
            """,
            "CREATE INDEX missing_changes_version ON missing_changes (version)",
            """
            CREATE TABLE sightings (id TEXT PRIMARY KEY, sentinel_id TEXT NOT NULL REFERENCES sentinels(id),
              client_id TEXT NOT NULL, bike_id TEXT NOT NULL REFERENCES bikes(id) ON DELETE CASCADE,
              beacon_uuid TEXT NOT NULL, beacon_major BIGINT NOT NULL, beacon_minor BIGINT NOT NULL,
              event TEXT NOT NULL, time_ms BIGINT NOT NULL, first_seen_ms BIGINT NOT NULL, last_seen_ms BIGINT NOT NULL,
              rssi BIGINT NOT NULL, distance DOUBLE PRECISION, zone TEXT NOT NULL,
              latitude DOUBLE PRECISION NOT NULL, longitude DOUBLE PRECISION NOT NULL, received_ms BIGINT NOT NULL,
              UNIQUE (sentinel_id, client_id))
            """,
            "CREATE INDEX sightings_bike_time ON sightings (bike_id, time_ms, id)",
        ]),
        Step(
            version: 2,
            sqlite: [
                """
                CREATE TABLE events (id INTEGER PRIMARY KEY AUTOINCREMENT,
                  account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                  payload TEXT NOT NULL, created_ms BIGINT NOT NULL)
                """,
            ],
            postgres: [
                """
                CREATE TABLE events (id BIGSERIAL PRIMARY KEY,
                  account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                  payload TEXT NOT NULL, created_ms BIGINT NOT NULL)
                """,
            ]
        ),
        common(3, [
            "CREATE INDEX events_account ON events (account_id, id)",
            """
            CREATE TABLE deliveries (event_id BIGINT PRIMARY KEY REFERENCES events(id) ON DELETE CASCADE,
              url TEXT NOT NULL, secret TEXT NOT NULL, attempts BIGINT NOT NULL, next_attempt_ms BIGINT NOT NULL,
              delivered_ms BIGINT, failed_ms BIGINT, last_error TEXT)
            """,
            "CREATE INDEX deliveries_due ON deliveries (next_attempt_ms)",
        ]),
        // Sentinel rate limits shared by every replica (#13). Version 40: parallel branches add 13, 20, 30.
        common(40, ["CREATE TABLE rate_buckets (key TEXT PRIMARY KEY, tokens DOUBLE PRECISION NOT NULL, last_ms BIGINT NOT NULL)"]),
    ]

    /// Brings the schema up to date. Safe with several servers starting at once on one PostgreSQL:
    /// each step runs in a transaction under an advisory lock.
    static func run(on database: Database, now: Int64) async throws {
        let flavor = database.flavor
        try await database.withSession { db in
            try await db.raw("CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, applied_ms BIGINT NOT NULL)").run()
            if flavor == .sqlite {
                try await db.raw("PRAGMA journal_mode = WAL").run()
                try await db.raw("PRAGMA synchronous = NORMAL").run()
                try await db.raw("PRAGMA busy_timeout = 5000").run()
            }
        }
        for step in steps {
            try await database.transaction { db in
                if flavor == .postgres {
                    try await db.raw("SELECT pg_advisory_xact_lock(\(bind: 4_242_424))").run()
                }
                let applied = try await db.raw("SELECT COUNT(*) AS n FROM schema_migrations WHERE version = \(bind: step.version)")
                    .first()?.decode(column: "n", as: Int.self) ?? 0
                guard applied == 0 else { return }
                for statement in flavor == .sqlite ? step.sqlite : step.postgres {
                    try await db.raw(SQLQueryString(statement)).run()
                }
                try await db.raw("INSERT INTO schema_migrations (version, applied_ms) VALUES (\(bind: step.version), \(bind: now))").run()
            }
        }
    }
}
