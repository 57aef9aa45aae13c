import Foundation
import ConstantColor
import ConstantColorIO

extension SynthCapture {
    /// File names in a condition folder.
    public enum FileName {
        /// The flash frame (flash + ambient).
        public static let flash = "flash.tif"
        /// The ambient (no-flash) frame.
        public static let ambient = "ambient.tif"
        /// The dark-room (flash only) capture.
        public static let darkroom = "darkroom.tif"
        /// The dark frame (lens capped) that goes with a dark-room capture.
        public static let dark = "dark.tif"
        /// The truth file.
        public static let truth = "truth.json"
        /// The flash frame's material labels (with `RenderOptions.truthMaps`).
        public static let labels = "labels.tif"
        /// The ambient frame's material labels (with `RenderOptions.truthMaps`).
        public static let ambientLabels = "ambient-labels.tif"
    }

    /// Writes the condition folder: `flash.tif` + `ambient.tif` (or `darkroom.tif` for a capture with
    /// no ambient light, with `dark.tif` when its dark frame was rendered) as 16-bit RGB with EXIF
    /// exposure, and `truth.json` (with a `files` member naming the images). Files are written
    /// atomically; the folder is created if needed.
    public func write(toDirectory directory: String, compression: TIFFWriteOptions.Compression = .deflate,
                      protectedPaths: [String] = []) throws {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            // One line naming the folder and why, as for every other output (Foundation's error is a
            // dictionary dump, or "error 512"): said from the nearest part of the path that exists.
            var existing = (directory as NSString).deletingLastPathComponent
            while !existing.isEmpty && existing != "/" && !FileManager.default.fileExists(atPath: existing) {
                existing = (existing as NSString).deletingLastPathComponent
            }
            let folder = existing.isEmpty ? "." : existing
            var isFolder: ObjCBool = false
            let reason = FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) && !isFolder.boolValue
                ? "'\(folder)' is a file, not a folder"
                : access(folder, W_OK | X_OK) != 0 ? "folder '\(folder)' is not writable (\(String(cString: strerror(errno))))"
                : (error as NSError).localizedDescription
            throw AtomicFileError.writeFailed(path: directory, reason: "the folder cannot be created: \(reason)")
        }
        func path(_ name: String) -> String { (directory as NSString).appendingPathComponent(name) }
        // Files of an earlier render that this one would not replace would sit beside its truth.json
        // as if they were its own (a dark-room render over a pair left the pair for validate to
        // score against the dark room's truth).
        var written: Set<String> = ambient != nil ? [FileName.flash, FileName.ambient] : [FileName.darkroom]
        if ambient == nil, dark != nil { written.insert(FileName.dark) }
        if labels != nil { written.insert(FileName.labels) }
        if ambientLabels != nil { written.insert(FileName.ambientLabels) }
        let stale = [FileName.flash, FileName.ambient, FileName.darkroom, FileName.dark, FileName.labels, FileName.ambientLabels]
            .filter { !written.contains($0) && FileManager.default.fileExists(atPath: path($0)) }
        if !stale.isEmpty { throw StaleRenderFiles(folder: directory, names: stale) }
        func options(_ e: ExposureSettings) -> TIFFWriteOptions {
            TIFFWriteOptions(sampleType: .uint16, compression: compression, exposure: e, software: "constant-color synth")
        }
        var files: [String: JSONValue] = [:]
        if let ambient {
            try TIFFWriter.write(flash.image, to: path(FileName.flash), options: options(flash.exposure), protectedPaths: protectedPaths)
            try TIFFWriter.write(ambient.image, to: path(FileName.ambient), options: options(ambient.exposure), protectedPaths: protectedPaths)
            files = ["flash": .string(FileName.flash), "ambient": .string(FileName.ambient)]
        } else {
            try TIFFWriter.write(flash.image, to: path(FileName.darkroom), options: options(flash.exposure), protectedPaths: protectedPaths)
            files = ["darkroom": .string(FileName.darkroom)]
            if let dark {
                try TIFFWriter.write(dark.image, to: path(FileName.dark), options: options(dark.exposure), protectedPaths: protectedPaths)
                files["dark"] = .string(FileName.dark)
            }
        }
        let labelOptions = TIFFWriteOptions(sampleType: .uint8, compression: compression, software: "constant-color synth")
        if let labels {
            try TIFFWriter.write(labels, to: path(FileName.labels), options: labelOptions, protectedPaths: protectedPaths)
        }
        if let ambientLabels {
            try TIFFWriter.write(ambientLabels, to: path(FileName.ambientLabels), options: labelOptions, protectedPaths: protectedPaths)
        }
        var t = truth.object ?? [:]
        t["files"] = .object(files)
        try AtomicFile.writeJSON([(.object(t), path(FileName.truth))], protectedPaths: protectedPaths)
    }
}

/// A render's folder holds files of another render that it would not replace (`SynthCapture.write`).
public struct StaleRenderFiles: Error, Equatable, CustomStringConvertible {
    /// The folder.
    public var folder: String
    /// The files it holds that the render would leave.
    public var names: [String]

    public var description: String {
        "\(folder): holds \(names.joined(separator: ", ")) of another render, which this one would leave beside its truth.json; remove them or render into another folder"
    }
}
