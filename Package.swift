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
        .package(url: "https://github.com/vapor/sqlite-nio", from: "1.13.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "5.0.1"),
    ],
    targets: [
        // Pure core: no I/O, time is an input.
        .target(name: "Beacon"),
        .target(name: "Proximity", dependencies: ["Beacon"]),
        .target(name: "Regions", dependencies: ["Beacon", "Proximity"]),
        .target(name: "Registry", dependencies: ["Beacon"]),
        .target(name: "Tracking", dependencies: ["Beacon", "Proximity", "Regions", "Registry"]),
        .target(name: "Analysis", dependencies: ["Beacon", "Proximity", "Regions"]),

        // Edges: radios and capture files in, advertisements out.
        .systemLibrary(name: "CBlueZ", pkgConfig: "bluez", providers: [.apt(["libbluetooth-dev"])]),
        .systemLibrary(name: "CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
        .target(
            name: "Scanning",
            dependencies: ["Beacon", "CBlueZ", "CDBus", .product(name: "Logging", package: "swift-log")]
        ),

        // The daemon's durable edges: missing-list sync and cache, outbox, reporter.
        .target(
            name: "Sentinel",
            dependencies: [
                "Beacon", "Proximity", "Regions", "Registry", "Tracking", "Scanning",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Yams", package: "Yams"),
            ]
        ),

        // Benchmarks and the anchor methods they compare against.
        .target(name: "Benchmarks", dependencies: ["Beacon", "Proximity", "Regions", "Registry", "Tracking", "Scanning"]),

        .executableTarget(
            name: "bikebeacon",
            dependencies: [
                "Beacon", "Proximity", "Regions", "Registry", "Scanning", "Tracking", "Benchmarks", "Analysis", "Sentinel",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "BeaconTests", dependencies: ["Beacon", "TestSupport", "bikebeacon"]),
        .testTarget(name: "TrackingTests", dependencies: ["Tracking", "Beacon", "Proximity", "Regions", "Registry"]),
        .testTarget(name: "RegistryTests", dependencies: ["Registry", "Beacon", "Benchmarks"]),
        .testTarget(name: "RegionsTests", dependencies: ["Regions", "Analysis", "Benchmarks", "TestSupport", "bikebeacon"]),
        .testTarget(name: "ScanningTests", dependencies: ["Scanning", "Beacon", "Benchmarks", "TestSupport", "bikebeacon"]),
        .testTarget(
            name: "DBusScannerTests",
            dependencies: ["Beacon", "Scanning", "TestSupport", "bikebeacon", .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(name: "ProximityTests", dependencies: ["Proximity", "Benchmarks", "TestSupport", "bikebeacon"]),
        .executableTarget(name: "outbox-writer", dependencies: ["Sentinel", "Beacon"], path: "Tests/OutboxWriter"),
        .testTarget(
            name: "SentinelTests",
            dependencies: [
                "Sentinel", "Beacon", "Proximity", "Regions", "Registry", "Tracking", "Scanning", "TestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
