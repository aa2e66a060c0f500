/// Where bikebeacon keeps an owner's settings: `$XDG_CONFIG_HOME/bikebeacon`, else
/// `~/.config/bikebeacon`, as the XDG base-directory convention says.
public enum ConfigDirectory {
    /// The directory for this environment, or nil when neither XDG_CONFIG_HOME nor HOME is set.
    public static func path(environment: [String: String]) -> String? {
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            return xdg + "/bikebeacon"
        }
        if let home = environment["HOME"], !home.isEmpty {
            return home + "/.config/bikebeacon"
        }
        return nil
    }

    public static func bikesFile(environment: [String: String]) -> String? {
        path(environment: environment).map { $0 + "/bikes.json" }
    }

    public static func sessionFile(environment: [String: String]) -> String? {
        path(environment: environment).map { $0 + "/session.json" }
    }
}
