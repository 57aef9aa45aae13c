// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "ConstantColor",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "ConstantColor", targets: ["ConstantColor"]),
        .library(name: "ConstantColorIO", targets: ["ConstantColorIO"]),
        .library(name: "ConstantColorSynth", targets: ["ConstantColorSynth"]),
        .library(name: "ConstantColorCalibration", targets: ["ConstantColorCalibration"]),
        .executable(name: "constant-color", targets: ["constant-color"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .systemLibrary(
            name: "CTIFF", pkgConfig: "libtiff-4",
            providers: [.apt(["libtiff-dev"]), .brew(["libtiff"])]),
        .systemLibrary(
            name: "CLCMS2", pkgConfig: "lcms2",
            providers: [.apt(["liblcms2-dev"]), .brew(["little-cms2"])]),
        // glibc's allocator controls (mallopt), for the command-line tool alone.
        .systemLibrary(name: "CMalloc", path: "Sources/CMalloc"),
        // Pure Swift: images, stages, calibration model, pipeline. No C.
        .target(name: "ConstantColor"),
        // TIFF, ICC and Little CMS: the only C imports.
        .target(name: "ConstantColorIO", dependencies: ["ConstantColor", "CTIFF", "CLCMS2"]),
        // Spectral data and the physically based scene renderer.
        .target(name: "ConstantColorSynth", dependencies: ["ConstantColor", "ConstantColorIO"]),
        // Chart calibration (calibrate chart) and validation scoring (validate); needs CIEDE2000 from IO.
        .target(name: "ConstantColorCalibration", dependencies: ["ConstantColor", "ConstantColorIO"]),
        .executableTarget(
            name: "constant-color",
            dependencies: [
                "ConstantColor", "ConstantColorIO", "ConstantColorSynth", "ConstantColorCalibration",
                .target(name: "CMalloc", condition: .when(platforms: [.linux])),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        // The test targets' shared deterministic generator.
        .target(name: "TestSupport", dependencies: ["ConstantColorSynth"], path: "Tests/TestSupport"),
        .testTarget(name: "ConstantColorTests", dependencies: ["ConstantColor", "ConstantColorIO", "ConstantColorCalibration", "ConstantColorSynth", "TestSupport"]),
        .testTarget(name: "ConstantColorIOTests", dependencies: ["ConstantColor", "ConstantColorIO", "CLCMS2", "CTIFF", "TestSupport"]),
        .testTarget(name: "ConstantColorSynthTests", dependencies: ["ConstantColorSynth", "ConstantColorIO", "ConstantColor", "ConstantColorCalibration"]),
        .testTarget(name: "ConstantColorCalibrationTests", dependencies: ["ConstantColorCalibration", "ConstantColor", "ConstantColorIO", "TestSupport"]),
        .testTarget(name: "CLITests", dependencies: ["ConstantColor", "ConstantColorIO", "ConstantColorCalibration", "CLCMS2", "CTIFF", "TestSupport"]),
    ]
)
