import Testing

/// Every scenario on SQLite (always) and on PostgreSQL (when scripts/test started one).
@Suite("Server on SQLite")
struct SQLiteServerTests {
    @Test func accountsAndSessions() async throws { try await AccountScenarios.accountsAndSessions(.sqlite) }
    @Test func loginThrottle() async throws { try await AccountScenarios.loginThrottle(.sqlite) }
    @Test func signupThrottle() async throws { try await AccountScenarios.signupThrottle(.sqlite) }
    @Test func parallelWrongPasswords() async throws { try await LoginLimitScenarios.parallelWrongPasswords(.sqlite) }
    @Test func parallelWrongPasswordsOnTwoReplicas() async throws { try await LoginLimitScenarios.parallelWrongPasswordsOnTwoReplicas(.sqlite) }
    @Test func parallelGuessesWithTheRightOne() async throws { try await LoginLimitScenarios.parallelGuessesWithTheRightOne(.sqlite) }
    @Test func lockOutSparesTheOwner() async throws { try await LoginLimitScenarios.lockOutSparesTheOwner(.sqlite) }
    @Test func streamsEndWithTheirSession() async throws { try await StreamEndScenarios.endsWithItsSession(.sqlite) }
    @Test func passwordChecksAreThrottled() async throws { try await AccountSecurityScenarios.passwordChecksAreThrottled(.sqlite) }
    @Test func resetChecksTheTokenFirst() async throws { try await AccountSecurityScenarios.resetChecksTheTokenFirst(.sqlite) }
    @Test func weakPasswordAtSignUp() async throws { try await AccountSecurityScenarios.weakPasswordAtSignUp(.sqlite) }
    @Test func nulBytesAndNosniff() async throws { try await AccountSecurityScenarios.nulBytesAndNosniff(.sqlite) }
    @Test func passwordChange() async throws { try await AccountSecurityScenarios.passwordChange(.sqlite) }
    @Test func metricsOnTheirOwnListener() async throws { try await ListenerScenarios.metricsOnTheirOwnListener(.sqlite) }
    @Test func halfSentRequestsTimeOut() async throws { try await ListenerScenarios.halfSentRequestsTimeOut(.sqlite) }
    @Test func clientAbortIsNoServerError() async throws { try await ListenerScenarios.clientAbortIsNoServerError(.sqlite) }
    @Test func signupThrottleCountsThePeer() async throws { try await AccountScenarios.signupThrottleCountsThePeer(.sqlite) }
    @Test func cookieSessions() async throws { try await SessionScenarios.cookieSessions(.sqlite) }
    @Test func bikes() async throws { try await BikeScenarios.crud(.sqlite) }
    @Test func bikesPerAccount() async throws { try await BikeScenarios.bikesPerAccount(.sqlite) }
    @Test func beaconTakenIsNoOracle() async throws { try await BikeScenarios.beaconTakenIsNoOracle(.sqlite) }
    @Test func missingListETagAndDeltas() async throws { try await MissingListScenarios.etagAndDeltas(.sqlite) }
    @Test func sightings() async throws { try await SightingScenarios.ingestAndRead(.sqlite) }
    @Test func roamingSightings() async throws { try await RoamingSightingScenarios.positionsRoundTrip(.sqlite) }
    @Test func sentinelRateLimit() async throws { try await SightingScenarios.sentinelRateLimit(.sqlite) }
    @Test func authorizationMatrix() async throws { try await AuthorizationScenarios.matrix(.sqlite) }
    @Test func badInput() async throws { try await BadInputScenarios.refused(.sqlite) }
    @Test func webhooks() async throws { try await NotificationScenarios.webhookDelivery(.sqlite) }
    @Test func webhookSurvivesRestart() async throws { try await NotificationScenarios.webhookSurvivesRestart(.sqlite) }
    @Test func webhooksOncePerReplica() async throws { try await NotificationScenarios.webhooksOncePerReplica(.sqlite) }
    @Test func eventStream() async throws { try await NotificationScenarios.eventStream(.sqlite) }
    @Test func pushSubscriptionsAndSettings() async throws { try await PushScenarios.api(.sqlite) }
    @Test func notificationWindow() async throws { try await PushScenarios.noSpam(.sqlite) }
    @Test func privateTargetRefusedAtSend() async throws { try await PushScenarios.refusedAtSend(.sqlite) }
    @Test func replicasShareTheDatabase() async throws { try await ReplicaScenarios.sharedDatabase(.sqlite) }
    @Test func health() async throws { try await OpsScenarios.health(.sqlite) }
    @Test func metricsAndOpenAPI() async throws { try await OpsScenarios.metricsAndOpenAPI(.sqlite) }
    @Test func backupWhilePosting() async throws { try await BackupScenarios.backupWhilePosting(.sqlite) }
    @Test func exportThenDeleteAccount() async throws { try await AccountDataScenarios.exportThenDelete(.sqlite) }
    @Test func sightingEmails() async throws { try await MailScenarios.sightingEmails(.sqlite) }
    @Test func smtpOutage() async throws { try await MailScenarios.smtpOutage(.sqlite) }
    @Test func passwordReset() async throws { try await MailScenarios.passwordReset(.sqlite) }
    @Test func emailVerification() async throws { try await MailScenarios.emailVerification(.sqlite) }
    @Test func shareLinks() async throws { try await ShareScenarios.linkLifecycle(.sqlite) }
    @Test func theftReport() async throws { try await ReportScenarios.printable(.sqlite) }
    @Test func beaconPaste() async throws { try await BeaconPasteScenarios.parse(.sqlite) }
    @Test func bikeDates() async throws { try await DateScenarios.reminders(.sqlite) }
    @Test func findMyTag() async throws { try await NearbyScenarios.findMyTag(.sqlite) }
}

@Suite("Server on PostgreSQL", .enabled(if: Backend.postgresURL != nil, Backend.postgresSkipReason))
struct PostgresServerTests {
    @Test func accountsAndSessions() async throws { try await AccountScenarios.accountsAndSessions(.postgres) }
    @Test func loginThrottle() async throws { try await AccountScenarios.loginThrottle(.postgres) }
    @Test func signupThrottle() async throws { try await AccountScenarios.signupThrottle(.postgres) }
    @Test func parallelWrongPasswords() async throws { try await LoginLimitScenarios.parallelWrongPasswords(.postgres) }
    @Test func parallelWrongPasswordsOnTwoReplicas() async throws { try await LoginLimitScenarios.parallelWrongPasswordsOnTwoReplicas(.postgres) }
    @Test func parallelGuessesWithTheRightOne() async throws { try await LoginLimitScenarios.parallelGuessesWithTheRightOne(.postgres) }
    @Test func lockOutSparesTheOwner() async throws { try await LoginLimitScenarios.lockOutSparesTheOwner(.postgres) }
    @Test func streamsEndWithTheirSession() async throws { try await StreamEndScenarios.endsWithItsSession(.postgres) }
    @Test func passwordChecksAreThrottled() async throws { try await AccountSecurityScenarios.passwordChecksAreThrottled(.postgres) }
    @Test func resetChecksTheTokenFirst() async throws { try await AccountSecurityScenarios.resetChecksTheTokenFirst(.postgres) }
    @Test func weakPasswordAtSignUp() async throws { try await AccountSecurityScenarios.weakPasswordAtSignUp(.postgres) }
    @Test func nulBytesAndNosniff() async throws { try await AccountSecurityScenarios.nulBytesAndNosniff(.postgres) }
    @Test func passwordChange() async throws { try await AccountSecurityScenarios.passwordChange(.postgres) }
    @Test func metricsOnTheirOwnListener() async throws { try await ListenerScenarios.metricsOnTheirOwnListener(.postgres) }
    @Test func halfSentRequestsTimeOut() async throws { try await ListenerScenarios.halfSentRequestsTimeOut(.postgres) }
    @Test func clientAbortIsNoServerError() async throws { try await ListenerScenarios.clientAbortIsNoServerError(.postgres) }
    @Test func signupThrottleCountsThePeer() async throws { try await AccountScenarios.signupThrottleCountsThePeer(.postgres) }
    @Test func cookieSessions() async throws { try await SessionScenarios.cookieSessions(.postgres) }
    @Test func bikes() async throws { try await BikeScenarios.crud(.postgres) }
    @Test func bikesPerAccount() async throws { try await BikeScenarios.bikesPerAccount(.postgres) }
    @Test func beaconTakenIsNoOracle() async throws { try await BikeScenarios.beaconTakenIsNoOracle(.postgres) }
    @Test func missingListETagAndDeltas() async throws { try await MissingListScenarios.etagAndDeltas(.postgres) }
    @Test func sightings() async throws { try await SightingScenarios.ingestAndRead(.postgres) }
    @Test func roamingSightings() async throws { try await RoamingSightingScenarios.positionsRoundTrip(.postgres) }
    @Test func sentinelRateLimit() async throws { try await SightingScenarios.sentinelRateLimit(.postgres) }
    @Test func authorizationMatrix() async throws { try await AuthorizationScenarios.matrix(.postgres) }
    @Test func badInput() async throws { try await BadInputScenarios.refused(.postgres) }
    @Test func webhooks() async throws { try await NotificationScenarios.webhookDelivery(.postgres) }
    @Test func webhookSurvivesRestart() async throws { try await NotificationScenarios.webhookSurvivesRestart(.postgres) }
    @Test func webhooksOncePerReplica() async throws { try await NotificationScenarios.webhooksOncePerReplica(.postgres) }
    @Test func eventStream() async throws { try await NotificationScenarios.eventStream(.postgres) }
    @Test func pushSubscriptionsAndSettings() async throws { try await PushScenarios.api(.postgres) }
    @Test func notificationWindow() async throws { try await PushScenarios.noSpam(.postgres) }
    @Test func privateTargetRefusedAtSend() async throws { try await PushScenarios.refusedAtSend(.postgres) }
    @Test func replicasShareTheDatabase() async throws { try await ReplicaScenarios.sharedDatabase(.postgres) }
    @Test func health() async throws { try await OpsScenarios.health(.postgres) }
    @Test func metricsAndOpenAPI() async throws { try await OpsScenarios.metricsAndOpenAPI(.postgres) }
    @Test func backupWhilePosting() async throws { try await BackupScenarios.backupWhilePosting(.postgres) }
    @Test func exportThenDeleteAccount() async throws { try await AccountDataScenarios.exportThenDelete(.postgres) }
    @Test func sightingEmails() async throws { try await MailScenarios.sightingEmails(.postgres) }
    @Test func smtpOutage() async throws { try await MailScenarios.smtpOutage(.postgres) }
    @Test func passwordReset() async throws { try await MailScenarios.passwordReset(.postgres) }
    @Test func emailVerification() async throws { try await MailScenarios.emailVerification(.postgres) }
    @Test func shareLinks() async throws { try await ShareScenarios.linkLifecycle(.postgres) }
    @Test func theftReport() async throws { try await ReportScenarios.printable(.postgres) }
    @Test func beaconPaste() async throws { try await BeaconPasteScenarios.parse(.postgres) }
    @Test func bikeDates() async throws { try await DateScenarios.reminders(.postgres) }
    @Test func findMyTag() async throws { try await NearbyScenarios.findMyTag(.postgres) }
}
