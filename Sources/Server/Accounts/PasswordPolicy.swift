/// What a new password must be (sign-up, reset, change). Pure.
///
/// bcrypt reads at most 72 bytes, so longer passwords would be silently cut: they are refused. The passwords
/// guessers try first are refused too: the commonest ones from breach lists, one character repeated, a short
/// pattern repeated and runs along the digits, the alphabet or a keyboard row. The log-in limits allow a few
/// guesses per address; these are the guesses.
enum PasswordPolicy {
    /// Why `password` cannot be used, as a message naming `field`; nil when it can.
    static func problem(_ password: String, field: String) -> String? {
        guard password.count >= 8, password.utf8.count <= 72 else { return "'\(field)' must be 8 characters to 72 bytes long" }
        guard !isGuessable(password) else {
            return "'\(field)' is among the first passwords anyone guesses (a common password, a repeated pattern or a run like 12345678); choose another"
        }
        return nil
    }

    static func isGuessable(_ password: String) -> Bool {
        let lowered = password.lowercased()
        if common.contains(lowered) { return true }
        let characters = Array(lowered)
        // A unit of one to four characters, repeated: aaaaaaaa, 12121212, abcabcab.
        for unit in 1...4 where (unit..<characters.count).allSatisfy({ characters[$0] == characters[$0 - unit] }) {
            return true
        }
        // A stretch of a run, forwards or backwards: 12345678, 98765432, abcdefgh, qwertyui.
        return runs.contains { run in run.contains(lowered) || String(run.reversed()).contains(lowered) }
    }

    static let runs = ["01234567890", "abcdefghijklmnopqrstuvwxyz", "qwertyuiop", "asdfghjkl", "zxcvbnm", "1qaz2wsx3edc4rfv", "1q2w3e4r5t6y"]

    /// The commonest passwords of eight characters or more in published breach lists (lowercase).
    static let common: Set<String> = [
        "password", "password1", "password12", "password123", "password!", "passw0rd", "p@ssw0rd", "p@ssword",
        "iloveyou", "iloveyou1", "sunshine", "princess", "football", "baseball", "basketball", "superman", "batman123",
        "trustno1", "letmein1", "letmein123", "welcome1", "welcome123", "whatever", "starwars", "michael1", "charlie1",
        "computer", "internet", "shadow12", "monkey123", "dragon123", "master123", "abc12345", "abcd1234", "qwerty12",
        "qwerty123", "qwerty1234", "1q2w3e4r", "1qaz2wsx", "zaq12wsx", "zaq1zaq1", "admin123", "administrator", "changeme",
        "secret123", "test1234", "testtest", "12qwaszx", "q1w2e3r4", "q1w2e3r4t5", "a1b2c3d4", "aa123456", "123qweasd",
        "1234qwer", "qazwsxedc", "asdf1234", "zxcvbnm1", "bikebeacon", "bicycle1",
    ]
}
