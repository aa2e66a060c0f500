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
        /// Work SQL cannot say the same way in both flavours (rewriting JSON), run after the statements in the step's transaction.
        var code: (@Sendable (any SQLDatabase) async throws -> Void)? = nil
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
        // Sessions get a public id (to list and revoke them), a kind (bearer token or dashboard cookie),
        // a last use (idle expiry) and the user agent (so owners can tell their devices apart).
        common(13, [
            "ALTER TABLE sessions ADD COLUMN id TEXT",
            "ALTER TABLE sessions ADD COLUMN kind TEXT NOT NULL DEFAULT 'token'",
            "ALTER TABLE sessions ADD COLUMN last_used_ms BIGINT",
            "ALTER TABLE sessions ADD COLUMN user_agent TEXT",
            "UPDATE sessions SET id = substr(token_hash, 1, 32), last_used_ms = created_ms",
            "CREATE UNIQUE INDEX sessions_id ON sessions (id)",
            "CREATE INDEX sessions_account ON sessions (account_id)",
        ]),
        // Notifications (#9). Version 20, not 4: parallel branches add steps too, and a shared number would skip one.
        Step(
            version: 20,
            sqlite: [
                """
                CREATE TABLE notification_deliveries (id INTEGER PRIMARY KEY AUTOINCREMENT,
                  account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE, channel TEXT NOT NULL,
                  target TEXT NOT NULL, payload TEXT NOT NULL, attempts BIGINT NOT NULL, next_attempt_ms BIGINT NOT NULL,
                  delivered_ms BIGINT, failed_ms BIGINT, last_error TEXT, created_ms BIGINT NOT NULL)
                """,
            ] + notificationTables,
            postgres: [
                """
                CREATE TABLE notification_deliveries (id BIGSERIAL PRIMARY KEY,
                  account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE, channel TEXT NOT NULL,
                  target TEXT NOT NULL, payload TEXT NOT NULL, attempts BIGINT NOT NULL, next_attempt_ms BIGINT NOT NULL,
                  delivered_ms BIGINT, failed_ms BIGINT, last_error TEXT, created_ms BIGINT NOT NULL)
                """,
            ] + notificationTables
        ),
        accountMail,
        // Sentinel rate limits shared by every replica (#13). Version 40: parallel branches add 13, 20, 30.
        common(40, ["CREATE TABLE rate_buckets (key TEXT PRIMARY KEY, tokens DOUBLE PRECISION NOT NULL, last_ms BIGINT NOT NULL)"]),
        // Roaming sentinels (#27): a sentinel without a fixed place, and sightings with their own position.
        // sightings.fix: NULL, the sentinel's enrolled place (copied into latitude/longitude as before);
        // 'gps', latitude/longitude are the sentinel's own fix, accuracy_m and fix_ms its accuracy and time;
        // 'none', no position (latitude/longitude hold 0 and are never read: they are NOT NULL since
        // step 1, and SQLite cannot drop that without rebuilding the table).
        common(45, [
            "ALTER TABLE sentinels ADD COLUMN roaming BIGINT NOT NULL DEFAULT 0",
            "ALTER TABLE sightings ADD COLUMN fix TEXT",
            "ALTER TABLE sightings ADD COLUMN accuracy_m DOUBLE PRECISION",
            "ALTER TABLE sightings ADD COLUMN fix_ms BIGINT",
        ]),
        // Theft (#25): read-only share links (tokens stored as digests) and each bike's recovery contact.
        // Version 55: parallel branches add steps in the 50s too.
        common(55, [
            """
            CREATE TABLE shares (id TEXT PRIMARY KEY, bike_id TEXT NOT NULL REFERENCES bikes(id) ON DELETE CASCADE,
              token_hash TEXT NOT NULL UNIQUE, label TEXT NOT NULL, include_notes BIGINT NOT NULL,
              created_ms BIGINT NOT NULL, expires_ms BIGINT NOT NULL, revoked_ms BIGINT,
              views BIGINT NOT NULL, last_viewed_ms BIGINT)
            """,
            "CREATE INDEX shares_bike ON shares (bike_id, created_ms)",
            "ALTER TABLE bikes ADD COLUMN recovery_contact TEXT NOT NULL DEFAULT ''",
        ]),
        // Bikes' dates and their reminders (reminder: scheduled, sent or past).
        common(60, [
            """
            CREATE TABLE bike_dates (id TEXT PRIMARY KEY, bike_id TEXT NOT NULL REFERENCES bikes(id) ON DELETE CASCADE,
              name TEXT NOT NULL, due TEXT NOT NULL, remind_days BIGINT NOT NULL, time_zone TEXT NOT NULL,
              remind_ms BIGINT NOT NULL, reminder TEXT NOT NULL, reminded_ms BIGINT, created_ms BIGINT NOT NULL)
            """,
            "CREATE INDEX bike_dates_bike ON bike_dates (bike_id, due)",
            "CREATE INDEX bike_dates_due ON bike_dates (reminder, remind_ms)",
        ]),
        // Home sentinels (an owner's, for "Find my tag"): who owns one, until when it reports the tags it hears, and what it heard.
        common(65, [
            "ALTER TABLE sentinels ADD COLUMN owner_id TEXT REFERENCES accounts(id) ON DELETE SET NULL",
            "ALTER TABLE sentinels ADD COLUMN listen_until_ms BIGINT",
            """
            CREATE TABLE nearby_beacons (sentinel_id TEXT NOT NULL REFERENCES sentinels(id) ON DELETE CASCADE,
              beacon_uuid TEXT NOT NULL, beacon_major BIGINT NOT NULL, beacon_minor BIGINT NOT NULL, rssi BIGINT NOT NULL,
              count BIGINT NOT NULL, heard_ms BIGINT NOT NULL, PRIMARY KEY (sentinel_id, beacon_uuid, beacon_major, beacon_minor))
            """,
        ]),
        // Sentinel health (#34): each sentinel's last heartbeat with the state judged from it (one row,
        // updated in place), every change of state, and the event kind on owners' streams.
        Step(
            version: 70,
            sqlite: [
                """
                CREATE TABLE sentinel_transitions (id INTEGER PRIMARY KEY AUTOINCREMENT,
                  sentinel_id TEXT NOT NULL REFERENCES sentinels(id) ON DELETE CASCADE, from_state TEXT, to_state TEXT NOT NULL,
                  reason TEXT NOT NULL, at_ms BIGINT NOT NULL)
                """,
            ] + sentinelHealthTables,
            postgres: [
                """
                CREATE TABLE sentinel_transitions (id BIGSERIAL PRIMARY KEY,
                  sentinel_id TEXT NOT NULL REFERENCES sentinels(id) ON DELETE CASCADE, from_state TEXT, to_state TEXT NOT NULL,
                  reason TEXT NOT NULL, at_ms BIGINT NOT NULL)
                """,
            ] + sentinelHealthTables
        ),
        // Sentinel alerts (#34): a sentinel's host contact, which alert was last told (the claim), and the
        // alert mails to hosts, home owners and the operator (addresses without an account, so not
        // notification_deliveries, whose rows belong to an account), delivered by the same worker.
        Step(
            version: 71,
            sqlite: [
                """
                CREATE TABLE sentinel_alerts (id INTEGER PRIMARY KEY AUTOINCREMENT,
                  sentinel_id TEXT NOT NULL REFERENCES sentinels(id) ON DELETE CASCADE, address TEXT NOT NULL, payload TEXT NOT NULL,
                  attempts BIGINT NOT NULL, next_attempt_ms BIGINT NOT NULL, delivered_ms BIGINT, failed_ms BIGINT, last_error TEXT,
                  created_ms BIGINT NOT NULL)
                """,
            ] + sentinelAlertColumns,
            postgres: [
                """
                CREATE TABLE sentinel_alerts (id BIGSERIAL PRIMARY KEY,
                  sentinel_id TEXT NOT NULL REFERENCES sentinels(id) ON DELETE CASCADE, address TEXT NOT NULL, payload TEXT NOT NULL,
                  attempts BIGINT NOT NULL, next_attempt_ms BIGINT NOT NULL, delivered_ms BIGINT, failed_ms BIGINT, last_error TEXT,
                  created_ms BIGINT NOT NULL)
                """,
            ] + sentinelAlertColumns
        ),
        // Operator accounts (#34): owners who may also see the whole network.
        common(72, [
            "CREATE TABLE operators (account_id TEXT PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE, created_ms BIGINT NOT NULL)",
        ]),
        // One-time enrolment codes (`bikebeacon enroll`): the code's digest and the token sealed with the code.
        common(75, [
            """
            CREATE TABLE sentinel_enrolments (code_hash TEXT PRIMARY KEY,
              sentinel_id TEXT NOT NULL REFERENCES sentinels(id) ON DELETE CASCADE, sealed_token TEXT NOT NULL,
              created_ms BIGINT NOT NULL, expires_ms BIGINT NOT NULL, used_ms BIGINT)
            """,
            "CREATE INDEX sentinel_enrolments_sentinel ON sentinel_enrolments (sentinel_id)",
        ]),
        // Log-in attempts claimed before bcrypt, with their client address (#35, `LoginGuard`). Version 80: parallel
        // branches add steps too. The old rows (the last five minutes' failures, without a client) are not worth keeping.
        common(80, [
            "DROP TABLE login_attempts",
            "CREATE TABLE login_attempts (id TEXT PRIMARY KEY, email TEXT NOT NULL, client TEXT NOT NULL, time_ms BIGINT NOT NULL)",
            "CREATE INDEX login_attempts_email ON login_attempts (email, client, time_ms)",
            "CREATE INDEX login_attempts_client ON login_attempts (client, time_ms)",
            "CREATE INDEX login_attempts_time ON login_attempts (time_ms)",
        ]),
        // Home sentinels stay private (#35): whose home sentinel heard each sighting, as `SightingPrivacy.Home`
        // (0 a public sentinel, 1 the bike owner's own home sentinel, 2 another owner's), set at ingest and
        // here for the sightings stored before. `sentinels.home` keeps a home sentinel private after its
        // owner's account is gone (owner_id is then NULL).
        common(90, [
            "ALTER TABLE sentinels ADD COLUMN home BIGINT NOT NULL DEFAULT 0",
            "UPDATE sentinels SET home = 1 WHERE owner_id IS NOT NULL",
            "ALTER TABLE sightings ADD COLUMN sentinel_home BIGINT NOT NULL DEFAULT 0",
            """
            UPDATE sightings SET sentinel_home = CASE
              WHEN (SELECT t.owner_id FROM sentinels t WHERE t.id = sightings.sentinel_id) IS NULL THEN 0
              WHEN (SELECT t.owner_id FROM sentinels t WHERE t.id = sightings.sentinel_id)
                 = (SELECT b.owner_id FROM bikes b WHERE b.id = sightings.bike_id) THEN 1
              ELSE 2 END
            """,
        ]),
        // A bike stays missing for a period unless renewed (#35): when it ends, and whether the owner was reminded.
        // Version 95: parallel branches add steps in the 70s, 80s and 90s.
        common(95, [
            "ALTER TABLE bikes ADD COLUMN missing_until_ms BIGINT",
            "ALTER TABLE bikes ADD COLUMN missing_reminded_ms BIGINT",
            // The delivery worker's pass looks for periods ending soon on every round.
            "CREATE INDEX bikes_missing_until ON bikes (missing_until_ms)",
        ]),
        // The coverage map (#34, goal 5): a public sentinel appears on it only when its host agreed
        // (`sentinels add … --on-coverage-map`, `sentinels coverage-map NAME on`); none has yet.
        common(100, [
            "ALTER TABLE sentinels ADD COLUMN on_coverage_map BIGINT NOT NULL DEFAULT 0",
        ]),
        // "Found a tag?" (#35): reports of a tag found hidden on someone. An open report freezes the bike's missing
        // status (`AbuseStore`); it keeps the beacon and the owner's e-mail, so it still says what it was about
        // after the bike or the account is gone. `abuse_mails` queues the operator's mails about them.
        Step(version: 110, sqlite: [
            abuseReports,
            """
            CREATE TABLE abuse_mails (id INTEGER PRIMARY KEY AUTOINCREMENT, report_id TEXT NOT NULL REFERENCES abuse_reports(id),
              address TEXT NOT NULL, attempts BIGINT NOT NULL, next_attempt_ms BIGINT NOT NULL, delivered_ms BIGINT, failed_ms BIGINT,
              last_error TEXT, created_ms BIGINT NOT NULL)
            """,
        ] + abuseIndexes, postgres: [
            abuseReports,
            """
            CREATE TABLE abuse_mails (id BIGSERIAL PRIMARY KEY, report_id TEXT NOT NULL REFERENCES abuse_reports(id),
              address TEXT NOT NULL, attempts BIGINT NOT NULL, next_attempt_ms BIGINT NOT NULL, delivered_ms BIGINT, failed_ms BIGINT,
              last_error TEXT, created_ms BIGINT NOT NULL)
            """,
        ] + abuseIndexes),
        // Guardrails on tracking (#35). When each bike's tag was put on it, for the 24 h hold on new tags
        // (`NewTagHold`); bikes stored before count from their last change, the latest the tag can have come.
        // Every missing report with its police reference, and every read of a bike's sightings (`ReadLog`),
        // for the operator's abuse cases: neither references bikes or accounts, so deleting the bike or the
        // account does not delete the trail of who followed it. Version 120: parallel branches add steps too.
        common(120, [
            "ALTER TABLE bikes ADD COLUMN beacon_since_ms BIGINT",
            "UPDATE bikes SET beacon_since_ms = updated_ms",
            """
            CREATE TABLE missing_reports (id TEXT PRIMARY KEY, bike_id TEXT NOT NULL, owner_id TEXT NOT NULL, beacon TEXT NOT NULL,
              beacon_since_ms BIGINT NOT NULL, police_reference TEXT, time_ms BIGINT NOT NULL)
            """,
            "CREATE INDEX missing_reports_bike ON missing_reports (bike_id, time_ms)",
            "CREATE INDEX missing_reports_owner ON missing_reports (owner_id, time_ms)",
            "CREATE INDEX missing_reports_time ON missing_reports (time_ms)",
            """
            CREATE TABLE sighting_reads (bike_id TEXT NOT NULL, owner_id TEXT NOT NULL, reader TEXT NOT NULL, route TEXT NOT NULL,
              client TEXT NOT NULL, bucket BIGINT NOT NULL, time_ms BIGINT NOT NULL, PRIMARY KEY (bike_id, reader, route, bucket))
            """,
            "CREATE INDEX sighting_reads_owner ON sighting_reads (owner_id, time_ms)",
            "CREATE INDEX sighting_reads_time ON sighting_reads (time_ms)",
        ]),
        // Events and notifications stored before step 90 still name other owners' home sentinels at their exact
        // place; `/v1/events` replays them from any Last-Event-ID, and queued ones are still sent (#35).
        Step(version: 121, sqlite: [], postgres: [], code: PrivacyBackfill.run),
        // A counter every change to `sentinels` bumps, by triggers, whoever makes it (this server, another
        // replica, the `sentinels` CLI in another process): `SentinelPollCache` answers a sentinel's token from
        // memory and reads this one row (with the missing list's version) to know when to forget (#36).
        Step(version: 130, sqlite: [
            "CREATE TABLE sentinels_version (id BIGINT PRIMARY KEY, version BIGINT NOT NULL)",
            "INSERT INTO sentinels_version (id, version) VALUES (1, 0)",
        ] + ["INSERT", "UPDATE", "DELETE"].map { change in
            """
            CREATE TRIGGER sentinels_\(change.lowercased())_bumps_version AFTER \(change) ON sentinels
            BEGIN UPDATE sentinels_version SET version = version + 1 WHERE id = 1; END
            """
        }, postgres: [
            "CREATE TABLE sentinels_version (id BIGINT PRIMARY KEY, version BIGINT NOT NULL)",
            "INSERT INTO sentinels_version (id, version) VALUES (1, 0)",
            """
            CREATE FUNCTION bump_sentinels_version() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN UPDATE sentinels_version SET version = version + 1 WHERE id = 1; RETURN NULL; END $$
            """,
            """
            CREATE TRIGGER sentinels_bump_version AFTER INSERT OR UPDATE OR DELETE ON sentinels
            FOR EACH STATEMENT EXECUTE FUNCTION bump_sentinels_version()
            """,
            // Other replicas hear of it at once (`PostgresEventListener`), not only at their next check.
            """
            CREATE FUNCTION notify_poll_stamp() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN PERFORM pg_notify('\(PostgresEventListener.channel)', '\(PostgresEventListener.pollStampPayload)'); RETURN NULL; END $$
            """,
            """
            CREATE TRIGGER missing_version_notifies AFTER UPDATE ON missing_version
            FOR EACH STATEMENT EXECUTE FUNCTION notify_poll_stamp()
            """,
            """
            CREATE TRIGGER sentinels_version_notifies AFTER UPDATE ON sentinels_version
            FOR EACH STATEMENT EXECUTE FUNCTION notify_poll_stamp()
            """,
        ]),
        // Whether the last take found a token: `RateLimiter.retryAfter` refills and spends in one upsert and
        // reads the outcome from its RETURNING (#36: a sentinel's batch paid five round trips for its limit).
        common(140, ["ALTER TABLE rate_buckets ADD COLUMN granted BIGINT NOT NULL DEFAULT 1"]),
        // A report seals, never destroys (#43). `bikes.sealed_case` names the open case sealing the bike (set once, by a
        // conditional update); each sighting keeps the case it was stored under, read in its own insert, so a release
        // needs no rewrite of rows a concurrent insert may still add. `case_id` groups a bike's reports into one case;
        // `held` reports wait for the operator (the breaker). `sealed_evidence` keeps a sealed sighting, as heard,
        // when its bike or account is deleted, until the case's retention ends or `abuse purge`. Events and queued
        // deliveries carry their bike, so a seal stops them at once. Version 150: parallel branches add steps too.
        common(150, [
            "ALTER TABLE bikes ADD COLUMN sealed_case TEXT",
            "ALTER TABLE sightings ADD COLUMN sealed_case TEXT",
            "CREATE INDEX sightings_sealed_case ON sightings (sealed_case)",
            "ALTER TABLE abuse_reports ADD COLUMN case_id TEXT",
            "ALTER TABLE abuse_reports ADD COLUMN purged_ms BIGINT",
            "ALTER TABLE abuse_reports ADD COLUMN operator_contact TEXT",
            "CREATE INDEX abuse_reports_case ON abuse_reports (case_id)",
            "CREATE INDEX abuse_reports_created ON abuse_reports (created_ms)",
            """
            CREATE TABLE sealed_evidence (sighting_id TEXT PRIMARY KEY, case_id TEXT NOT NULL, bike_id TEXT NOT NULL,
              owner_email TEXT NOT NULL, bike_name TEXT NOT NULL, sentinel_owner_email TEXT, sighting TEXT NOT NULL, kept_ms BIGINT NOT NULL)
            """,
            "CREATE INDEX sealed_evidence_case ON sealed_evidence (case_id)",
            "ALTER TABLE events ADD COLUMN bike_id TEXT",
            "ALTER TABLE notification_deliveries ADD COLUMN bike_id TEXT",
            // Reports frozen under the old rule become sealing cases of their bike (found by id, or by beacon after a re-add).
            "UPDATE abuse_reports SET case_id = id WHERE status = 'open'",
            """
            UPDATE bikes SET sealed_case = (SELECT MIN(r.id) FROM abuse_reports r WHERE r.status = 'open' AND (r.bike_id = bikes.id
              OR (r.beacon_uuid = bikes.beacon_uuid AND r.beacon_major = bikes.beacon_major AND r.beacon_minor = bikes.beacon_minor)))
            """,
        ]),
        // A bike marked missing under the new-tag hold with a police reference: `reads` marks it, and the operator is
        // mailed at the time (#43: the reference is the owner's word); 1 until the mail is claimed, then 2.
        common(160, ["ALTER TABLE missing_reports ADD COLUMN passed_hold BIGINT NOT NULL DEFAULT 0"]),
        // What a position estimate reads of each sentinel's heartbeat (`SentinelReading`), in columns beside it: an
        // estimate on ingest joins them instead of decoding each sentinel's JSON (#44). Filled from the stored JSON once.
        Step(version: 170, sqlite: readingColumns, postgres: readingColumns, code: SentinelReading.backfill),
        // A bike's window read from its index alone: the estimate on ingest (#44) read each of a bike's sightings from
        // the table, one page each, as a bike's rows lie among every other bike's (`bikebeacon-bench ingest-estimate`).
        // Rebuilt once at upgrade, which takes a while on a large table.
        Step(version: 180, sqlite: ["DROP INDEX sightings_bike_time", SightingEstimates.coveringIndex(include: false)],
             postgres: ["DROP INDEX sightings_bike_time", SightingEstimates.coveringIndex(include: true)]),
    ]

    static let readingColumns = [
        "ALTER TABLE sentinel_health ADD COLUMN stamp_offset_s DOUBLE PRECISION",
        "ALTER TABLE sentinel_health ADD COLUMN calibration TEXT",
        "ALTER TABLE sentinel_health ADD COLUMN exponent DOUBLE PRECISION",
        "ALTER TABLE sentinel_health ADD COLUMN near_exponent DOUBLE PRECISION",
    ]

    static let abuseReports = """
        CREATE TABLE abuse_reports (id TEXT PRIMARY KEY, bike_id TEXT NOT NULL, owner_id TEXT NOT NULL, owner_email TEXT NOT NULL,
          beacon_uuid TEXT NOT NULL, beacon_major BIGINT NOT NULL, beacon_minor BIGINT NOT NULL, was_missing BIGINT NOT NULL,
          message TEXT NOT NULL, contact TEXT NOT NULL, client TEXT NOT NULL, created_ms BIGINT NOT NULL,
          status TEXT NOT NULL, resolved_ms BIGINT)
        """

    static let abuseIndexes = [
        "CREATE INDEX abuse_reports_open_bike ON abuse_reports (bike_id, status)",
        "CREATE INDEX abuse_reports_open_beacon ON abuse_reports (beacon_uuid, beacon_major, beacon_minor, status)",
        "CREATE INDEX abuse_mails_due ON abuse_mails (next_attempt_ms)",
    ]

    /// Sentinel health, beside `sentinel_transitions` (whose id column differs by flavour).
    static let sentinelHealthTables = [
        "CREATE INDEX sentinel_transitions_sentinel ON sentinel_transitions (sentinel_id, id)",
        """
        CREATE TABLE sentinel_health (sentinel_id TEXT PRIMARY KEY REFERENCES sentinels(id) ON DELETE CASCADE,
          heartbeat TEXT NOT NULL, received_ms BIGINT NOT NULL, state TEXT NOT NULL, reason TEXT NOT NULL, state_ms BIGINT NOT NULL)
        """,
        "ALTER TABLE events ADD COLUMN kind TEXT NOT NULL DEFAULT 'sighting'",
    ]

    static let sentinelAlertColumns = [
        "CREATE INDEX sentinel_alerts_due ON sentinel_alerts (next_attempt_ms)",
        "ALTER TABLE sentinels ADD COLUMN host_email TEXT",
        "ALTER TABLE sentinel_health ADD COLUMN alerted TEXT",
    ]

    /// Password-reset and email-verification tokens (#9, email). Version 30: see step 20.
    static let accountMail = common(30, [
        "ALTER TABLE accounts ADD COLUMN email_verified_ms BIGINT",
        // Accounts made before verification existed count as verified.
        "UPDATE accounts SET email_verified_ms = created_ms",
        """
        CREATE TABLE account_tokens (token_hash TEXT PRIMARY KEY,
          account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE, purpose TEXT NOT NULL,
          created_ms BIGINT NOT NULL, expires_ms BIGINT NOT NULL, used_ms BIGINT)
        """,
        "CREATE INDEX account_tokens_account ON account_tokens (account_id, purpose, created_ms)",
    ])

    /// Push subscriptions, owners' channel settings, the no-spam windows and the shared VAPID key.
    static let notificationTables = [
        "CREATE INDEX notification_deliveries_due ON notification_deliveries (next_attempt_ms)",
        """
        CREATE TABLE push_subscriptions (id TEXT PRIMARY KEY,
          account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE, endpoint TEXT NOT NULL,
          p256dh TEXT NOT NULL, auth TEXT NOT NULL, created_ms BIGINT NOT NULL, UNIQUE (account_id, endpoint))
        """,
        """
        CREATE TABLE notification_settings (account_id TEXT PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
          push BIGINT NOT NULL, email BIGINT NOT NULL)
        """,
        """
        CREATE TABLE notification_windows (bike_id TEXT NOT NULL REFERENCES bikes(id) ON DELETE CASCADE,
          place TEXT NOT NULL, last_sent_ms BIGINT NOT NULL, pending TEXT, PRIMARY KEY (bike_id, place))
        """,
        "CREATE INDEX notification_windows_pending ON notification_windows (last_sent_ms)",
        "CREATE TABLE vapid_keys (id BIGINT PRIMARY KEY, private_key TEXT NOT NULL, created_ms BIGINT NOT NULL)",
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
                // How long a writer waits for another connection's transaction (an admin command beside
                // the server, a second replica in the tests): 5 s ran out in CI while the holder waited for
                // a thread of the shared blocking pool to commit on; 30 s is the pool's own request timeout.
                try await db.raw("PRAGMA busy_timeout = 30000").run()
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
                try await step.code?(db)
                try await db.raw("INSERT INTO schema_migrations (version, applied_ms) VALUES (\(bind: step.version), \(bind: now))").run()
            }
        }
    }
}
