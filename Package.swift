// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "bikebeacon",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "bikebeacon", targets: ["bikebeacon"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        // Pure core: no I/O, time is an input.
        .target(name: "Beacon"),
        .target(name: "Proximity", dependencies: ["Beacon"]),
        .target(name: "Regions", dependencies: ["Beacon", "Proximity"]),
        .target(name: "Registry", dependencies: ["Beacon"]),

        // Edges: radios and capture files in, advertisements out.
        .target(
            name: "Scanning",
            dependencies: ["Beacon", .product(name: "Logging", package: "swift-log")]
        ),

        // Benchmarks and the anchor methods they compare against.
        .target(name: "Benchmarks", dependencies: ["Beacon", "Proximity", "Regions", "Registry"]),

        .executableTarget(
            name: "bikebeacon",
            dependencies: [
                "Beacon", "Proximity", "Regions", "Registry", "Scanning", "Benchmarks",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "BeaconTests", dependencies: ["Beacon", "TestSupport", "bikebeacon"]),
        .testTarget(name: "ProximityTests", dependencies: ["Proximity", "Benchmarks", "TestSupport", "bikebeacon"]),
    ],
    swiftLanguageModes: [.v6]
)
