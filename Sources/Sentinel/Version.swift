/// The version a sentinel reports of itself (`bikebeacon --version`, Home Assistant's device page).
/// scripts/package takes the package version from this line, so the two cannot drift apart.
public enum BikebeaconVersion {
    public static let current = "0.1.0"
}
