import Foundation
import Testing
@testable import ConstantColorSynth

/// Shared tolerances and fixture locations for the synth tests.
enum Fixture {
    /// The repository root (three levels above this file).
    static let root: String = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path
    /// `fixtures/spectra`.
    static let spectraDirectory = root + "/fixtures/spectra"
    /// The spectral library, loaded once per process.
    static let library: SpectralLibrary = try! SpectralLibrary(directory: spectraDirectory)

    /// A fresh temporary folder; the caller removes it (`removeTemporaryDirectory`, in a `defer`).
    static func temporaryDirectory(_ name: String) -> String {
        let d = NSTemporaryDirectory() + "cc-synth-\(name)-\(UUID().uuidString)"
        try! FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }

    /// Removes a folder made by `temporaryDirectory` and everything in it.
    static func removeTemporaryDirectory(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }
}
