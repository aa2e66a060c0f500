// swift-tools-version:6.1
import PackageDescription

/// How the shipped executables link in a Linux release build. The static Swift runtime's link line
/// exports every public symbol (-export-dynamic), which kept all of them alive past --gc-sections and
/// put 30 k names in the dynamic symbol table; and ld.gold writes one 24-byte relocation per pointer
/// (1.9 MB), which the loader reads at every start. lld packs those into RELR (16 KB; glibc ≥ 2.36,
/// Debian 12 and Raspberry Pi OS bookworm). Smaller binaries, fewer pages resident (#12).
///
/// libstdc++ (which the Swift runtime needs) is linked statically: the shared library costs a
/// process about a megabyte for the few functions the runtime calls. The runtime's link line asks
/// for `-lstdc++` itself; deploy/static-libstdc++ is searched first, and its `libstdc++.so` is a
/// linker script that answers with the static archive.
let leanReleaseLink: [LinkerSetting] = [
    .unsafeFlags(["-use-ld=lld", "-Xlinker", "--no-export-dynamic", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
                  "-L", "\(Context.packageDirectory)/deploy/static-libstdc++"],
                 .when(platforms: [.linux], configuration: .release)),
]

/// The code a sentinel runs, first and in the order it first runs (deploy/bikebeacon.order, made by
/// scripts/order-functions): it then shares a few megabytes of pages instead of touching most of the
/// binary. Takes effect with function sections, which scripts/package's release build turns on.
let sentinelCodeOrder: [LinkerSetting] = [
    .unsafeFlags(["-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/deploy/bikebeacon.order",
                  "-Xlinker", "--no-warn-symbol-ordering"],
                 .when(platforms: [.linux], configuration: .release)),
]

let package = Package(
    name: "bikebeacon",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "bikebeacon", targets: ["bikebeacon"]),
        .executable(name: "bikebeacon-server", targets: ["bikebeacon-server"]),
        .executable(name: "bikebeacon-bench", targets: ["bikebeacon-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/vapor/sql-kit", from: "3.36.0"),
        .package(url: "https://github.com/vapor/sqlite-kit", from: "4.5.2"),
        .package(url: "https://github.com/vapor/postgres-kit", from: "2.17.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/vapor/sqlite-nio", from: "1.13.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "5.0.1"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.29.0"),
        // gzip for the missing list: the server compresses each version once, the sentinel unpacks within a limit.
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
        // AsyncHTTPClient's own gzip decoding (HTTPClient.shared unpacks answers within 25 times their size): its error type.
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
    ],
    targets: [
        // Pure core: no I/O, time is an input.
        .target(name: "Beacon"),
        .target(name: "Proximity", dependencies: ["Beacon"]),
        .target(name: "Regions", dependencies: ["Beacon", "Proximity"]),
        .target(name: "Registry", dependencies: ["Beacon"]),
        .target(name: "Tracking", dependencies: ["Beacon", "Proximity", "Regions", "Registry"]),
        .target(name: "Analysis", dependencies: ["Beacon", "Proximity", "Regions"]),
        // Where a tag is from several receivers' RSSI: fixes with radii that hold.
        .target(name: "Locating", dependencies: ["Beacon", "Proximity"]),
        .target(
            name: "Owners",
            dependencies: [
                "Beacon", "Proximity", "Regions", "Tracking", "Durable", "ServerClient", "BikebeaconAPI",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // The HTTP API's wire types (requests, responses, events): one definition for the server, the sentinel and the CLI.
        .target(name: "BikebeaconAPI", dependencies: ["Beacon", "Registry"]),

        // Edges: radios and capture files in, advertisements out.
        .systemLibrary(name: "CBlueZ", pkgConfig: "bluez", providers: [.apt(["libbluetooth-dev"])]),
        .systemLibrary(name: "CMalloc"),
        // libdbus-1, loaded when the bus is first opened rather than linked (Sources/CDBus/include/CDBus.h).
        .target(name: "CDBus"),
        // libdbus wrapped: connection, messages, a pure value codec.
        .target(name: "DBus", dependencies: ["CDBus"]),
        // btsnoop, pcap and pcapng read and write: files of H4 packets.
        .target(name: "Captures", dependencies: ["Beacon"]),
        // HCI event parsing and the raw HCI socket.
        .target(name: "HCI", dependencies: ["Beacon", "CBlueZ"]),
        // The Scanner interface and its backends: BlueZ over D-Bus, raw HCI, capture files.
        .target(
            name: "Scanning",
            dependencies: ["Beacon", "DBus", "Captures", "HCI", .product(name: "Logging", package: "swift-log")]
        ),

        // A small MQTT 3.1.1 publishing client (no MQTT package is among the usable ones).
        .target(
            name: "MQTT",
            dependencies: [
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),

        // A small gpsd client (JSON protocol on SwiftNIO): where a roaming sentinel is. A module of its own, like
        // MQTT: a protocol client with a pure codec, tested and fuzzed apart from the sentinel that uses it.
        .target(
            name: "GPSD",
            dependencies: [
                "BikebeaconAPI", "Durable",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),

        // Child processes through posix_spawn (the alarm command, the demo's server, the tests' peers), without Foundation.
        .target(name: "Subprocesses", dependencies: ["CSpawn"]),
        // The two GNU spawn calls Swift's Glibc module does not import (closefrom, pipe2).
        .target(name: "CSpawn"),
        // The YAML subset a sentinel's config needs, read strictly with line numbers (pure; fuzzed).
        .target(name: "StrictYAML"),
        // Files replaced atomically and durably: the sentinel's state, the owner's config.
        .target(name: "Durable"),
        // The one HTTP client stack for talking to a bikebeacon server (AsyncHTTPClient): sentinel, owner CLI, demo.
        .target(
            name: "ServerClient",
            dependencies: [
                "BikebeaconAPI",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // What the command line prints: report lines and tables, stderr, and the terminal the range view draws on.
        .target(name: "Console", dependencies: ["Beacon", "Scanning", "Owners", .product(name: "Logging", package: "swift-log")]),
        // A throwaway bikebeacon-server child on a free loopback port, and an SMTP catcher for its mails: the demo's.
        .target(name: "LocalServer", dependencies: [
            "ServerClient", "Subprocesses", .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"), .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        ]),
        // The daemon's durable edges: missing-list sync and cache, outbox, reporter.
        .target(
            name: "Sentinel",
            dependencies: [
                "Beacon", "Proximity", "Regions", "Registry", "Tracking", "Scanning", "Durable", "ServerClient", "BikebeaconAPI", "MQTT", "GPSD",
                "Owners", "CMalloc",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                "StrictYAML", "Subprocesses",
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
            ]
        ),

        // Benchmarks and the anchor methods they compare against (never linked into a shipped binary).
        .target(
            name: "Benchmarks",
            dependencies: ["Beacon", "Proximity", "Regions", "Registry", "Tracking", "Scanning", "Captures", "HCI", "Locating"]
        ),
        .executableTarget(
            name: "bikebeacon-bench",
            dependencies: [
                "Beacon", "Proximity", "Registry", "Scanning", "Captures", "Benchmarks", "Sentinel", "Server", "BikebeaconAPI",
                "LocalServer", "Owners", "ServerClient", "GPSD", "Locating",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),

        .executableTarget(
            name: "bikebeacon",
            dependencies: [
                "Beacon", "Proximity", "Regions", "Registry", "Scanning", "Captures", "HCI", "Tracking", "Analysis", "Sentinel",
                "Owners", "ServerClient", "BikebeaconAPI", "LocalServer", "Durable", "CMalloc", "Console", "Locating",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            linkerSettings: leanReleaseLink + sentinelCodeOrder
        ),

        // Email: an SMTP client on SwiftNIO (no SMTP package is available) and MIME rendering.
        .target(
            name: "Mail",
            dependencies: [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),

        // The HTTP server: accounts, bikes, missing list, sightings, notifications.
        .target(
            name: "Server",
            dependencies: [
                "Beacon", "Registry", "Durable", "BikebeaconAPI", "Mail", "Subprocesses", "CMalloc", "Locating",
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "SQLiteKit", package: "sqlite-kit"),
                .product(name: "PostgresKit", package: "postgres-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("Resources/openapi.yaml"), .copy("Resources/dashboard")]
        ),
        .executableTarget(
            name: "bikebeacon-server",
            dependencies: [
                "Server", "Mail", "BikebeaconAPI",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            linkerSettings: leanReleaseLink
        ),

        .target(name: "TestSupport", dependencies: ["Subprocesses"], path: "Tests/TestSupport"),
        .testTarget(name: "BeaconTests", dependencies: ["Beacon", "TestSupport", "bikebeacon"]),
        .testTarget(
            name: "MQTTTests",
            dependencies: [
                "MQTT", "Benchmarks", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "GPSDTests",
            dependencies: [
                "GPSD", "Durable", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(name: "TrackingTests", dependencies: ["Tracking", "Beacon", "Proximity", "Regions", "Registry"]),
        .testTarget(name: "RegistryTests", dependencies: ["Registry", "Beacon", "Benchmarks"]),
        .testTarget(name: "RegionsTests", dependencies: ["Regions", "Analysis", "Benchmarks", "TestSupport", "bikebeacon"]),
        .testTarget(name: "ScanningTests", dependencies: ["Scanning", "Captures", "HCI", "Beacon", "Benchmarks", "TestSupport", "bikebeacon"]),
        .testTarget(name: "OwnersTests", dependencies: ["Owners", "Beacon", "Proximity", "Tracking", "Captures", "LocalServer", "TestSupport", "bikebeacon", "bikebeacon-server"]),
        .testTarget(
            name: "DBusScannerTests",
            dependencies: ["Beacon", "DBus", "Scanning", "TestSupport", "bikebeacon", .product(name: "Logging", package: "swift-log")],
            exclude: ["ABI"]
        ),
        .testTarget(name: "ProximityTests", dependencies: ["Proximity", "Benchmarks", "TestSupport", "bikebeacon-bench", "Beacon", "Captures", "Scanning", "Tracking"]),
        .executableTarget(name: "outbox-writer", dependencies: ["Sentinel", "Beacon"], path: "Tests/OutboxWriter"),
        .testTarget(
            name: "SentinelTests",
            dependencies: [
                "Sentinel", "Durable", "Beacon", "Proximity", "Regions", "Registry", "Tracking", "Scanning", "TestSupport", "ServerClient", "BikebeaconAPI", "LocalServer",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
            ]
        ),
        .testTarget(name: "LocatingTests", dependencies: ["Locating", "Benchmarks", "TestSupport", "bikebeacon"]),
        .testTarget(name: "ConsoleTests", dependencies: ["Console", "Beacon", "Scanning", "Owners"]),
        .testTarget(name: "SubprocessesTests", dependencies: ["Subprocesses"]),
        .testTarget(name: "StrictYAMLTests", dependencies: ["StrictYAML", "TestSupport", .product(name: "Yams", package: "Yams")]),
        .testTarget(name: "MailTests", dependencies: ["Mail", "TestSupport", .product(name: "NIOSSL", package: "swift-nio-ssl")]),
        .testTarget(
            name: "BikebeaconAPITests",
            dependencies: ["BikebeaconAPI", "Beacon", "Registry", "TestSupport", .product(name: "Yams", package: "Yams")]
        ),
        .testTarget(
            name: "ServerTests",
            dependencies: [
                "Server", "Beacon", "BikebeaconAPI", "TestSupport", "bikebeacon-server", "bikebeacon-bench", "LocalServer",
                "Mail", .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "CompressNIO", package: "compress-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// libFuzzer harnesses that need the package's dependencies (the server through its router, the
// sentinel's config). Only `scripts/fuzz` declares them (BIKEBEACON_FUZZ=1, its own build folder):
// our modules get coverage and AddressSanitizer, the dependencies stay uninstrumented.
if Context.environment["BIKEBEACON_FUZZ"] == "1" {
    let instrumented: Set = ["Beacon", "Registry", "BikebeaconAPI", "Durable", "Proximity", "StrictYAML", "Sentinel", "Server"]
    for target in package.targets where instrumented.contains(target.name) {
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-sanitize=fuzzer,address"])]
    }
    // Beside each harness's main.swift: its libFuzzer dictionary and LSan suppressions, which scripts/fuzz reads.
    let harness = { (name: String, dependencies: [Target.Dependency], exclude: [String]) in
        Target.executableTarget(name: "Fuzz\(name)", dependencies: dependencies + ["CFuzzDriver"], path: "Fuzz/\(name)",
                                exclude: exclude, linkerSettings: [.unsafeFlags(["-sanitize=address"])])
    }
    package.targets += [
        .target(name: "CFuzzDriver", path: "Fuzz/CFuzzDriver"),
        harness("SentinelConfig", ["Sentinel"], ["lsan.supp"]),
        harness("ServerRequests", ["Server", "Beacon", "BikebeaconAPI", .product(name: "Hummingbird", package: "hummingbird"),
                                   .product(name: "NIOEmbedded", package: "swift-nio"),
                                   .product(name: "Logging", package: "swift-log")],
                ["dictionary", "lsan.supp", "replay-over-http.py"]),
    ]
}
