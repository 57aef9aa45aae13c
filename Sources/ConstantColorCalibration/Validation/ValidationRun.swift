import ConstantColor
import ConstantColorIO
import Foundation

/// Runs the pipeline on a fixture set (SPEC 4.5 layout) and scores every condition (SPEC 5).
public enum ValidationRun {
    /// Why a folder cannot be validated; messages name the file.
    public enum Failure: Error, CustomStringConvertible {
        /// The set folder cannot be listed or holds no condition folder.
        case noConditions(directory: String)
        /// The set folder does not exist or is not a folder.
        case notAFolder(directory: String)
        /// A sub-folder holds some of a condition's files but not all.
        case incompleteCondition(folder: String, missing: [String])
        /// A label map is not single-channel.
        case notSingleChannel(file: String)
        /// A chart patch has no material of the same name in truth.json `materials[]`.
        case patchWithoutMaterial(file: String, patch: String)
        /// truth.json's `size` is not the frames' size: it describes another capture.
        case truthSizeMismatch(file: String, truth: [Int], frames: [Int])
        /// A condition's chart is not the first condition's (other patches, another order, other
        /// reference values): the set's figures compare each patch across conditions.
        case chartMismatch(file: String, firstFile: String, detail: String)
        /// truth.json's `condition.ambientLux` is not a number ≥ 0.
        case invalidLux(file: String)
        /// A chart patch's square leaves the frames.
        case patchOutsideFrames(file: String, patch: String, width: Int, height: Int)
        /// A sub-folder cannot be listed (permissions): it may be a condition, and skipping it would
        /// change the set's figures silently.
        case unreadableFolder(folder: String, reason: String)

        public var description: String {
            switch self {
            case .noConditions(let d): return "\(d): no condition folders (sub-folders with flash.tif, ambient.tif and truth.json)"
            case .notAFolder(let d):
                return FileManager.default.fileExists(atPath: d) ? "\(d): is a file, not a folder (validate reads a folder of condition folders)"
                    : "\(d): no such folder"
            case .incompleteCondition(let f, let missing):
                return "\(f): incomplete condition folder, missing \(missing.joined(separator: ", ")) (a condition needs flash.tif, ambient.tif and truth.json)"
            case .notSingleChannel(let f): return "\(f): a label map must have 1 channel"
            case .patchWithoutMaterial(let f, let p):
                return "\(f): chart patch '\(p)' has no materials[] entry of the same name, so its label in the label maps is unknown"
            case .truthSizeMismatch(let f, let truth, let frames):
                return "\(f): size \(truth[0])x\(truth[1]) is not the frames' \(frames[0])x\(frames[1]): the truth of another capture"
            case .chartMismatch(let f, let first, let detail):
                return "\(f): its chart is not \(first)'s (\(detail)); a set's conditions must describe one chart, its patches in the same order, since repeatability and variance reduction compare each patch across them"
            case .invalidLux(let f): return "\(f): key 'condition.ambientLux' must be a number >= 0 (the ambient illuminance in lux)"
            case .patchOutsideFrames(let f, let p, let w, let h):
                return "\(f): chart patch '\(p)': its square lies outside the \(w)x\(h) frames (a chart description of another capture?)"
            case .unreadableFolder(let f, let reason):
                return "\(f): cannot be read (\(reason)); it may be a condition, and leaving it out would change the set's figures"
            }
        }
    }

    /// The condition folders of a set, sorted by name: sub-folders holding `flash.tif`,
    /// `ambient.tif` and `truth.json`. Other entries (a dark-room folder, a README) are skipped; a
    /// sub-folder with a frame (`flash.tif` or `ambient.tif`), or with a truth.json and no
    /// `darkroom.tif`, and not all three files is an error.
    public static func conditionFolders(in directory: String) throws -> [String] {
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        guard fm.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw Failure.notAFolder(directory: directory)
        }
        let names: [String]
        do { names = try fm.contentsOfDirectory(atPath: directory) } catch {
            throw Failure.unreadableFolder(folder: directory, reason: Self.reason(error))
        }
        let required = ["flash.tif", "ambient.tif", "truth.json"]
        var folders: [String] = []
        for folder in names.sorted().map({ (directory as NSString).appendingPathComponent($0) }) {
            var isSubfolder: ObjCBool = false
            guard fm.fileExists(atPath: folder, isDirectory: &isSubfolder), isSubfolder.boolValue else { continue }
            // A sub-folder that cannot be listed is said, not taken for "no condition here".
            let entries: [String]
            do { entries = try fm.contentsOfDirectory(atPath: folder) } catch {
                throw Failure.unreadableFolder(folder: folder, reason: Self.reason(error))
            }
            let present = required.filter { entries.contains($0) }
            // Near misses of the names (`FLASH.TIF`, `flash.tiff`): the names are case-sensitive, and
            // such a folder is a condition misnamed, not something else to skip.
            func nearMiss(_ name: String) -> String? {
                entries.first { $0 != name && ($0.lowercased() == name || $0.lowercased() == name + "f") }
            }
            // A folder without either frame (a dark-room folder: darkroom.tif and its truth.json) is
            // not a condition; one with a frame and not all three files, or a truth.json with neither
            // frame nor a dark-room capture, is a condition that lost files, and skipping it would
            // change the set's figures silently.
            let lostFrames = present == ["truth.json"] && !entries.contains { $0.lowercased().hasPrefix("darkroom.tif") }
            if present.count == required.count {
                folders.append(folder)
            } else if present.contains("flash.tif") || present.contains("ambient.tif") || lostFrames
                        || nearMiss("flash.tif") != nil || nearMiss("ambient.tif") != nil {
                throw Failure.incompleteCondition(folder: folder, missing: required.filter { !present.contains($0) }.map { name in
                    nearMiss(name).map { "\(name) (found \($0): the names are case-sensitive, .tif)" } ?? name
                })
            }
        }
        guard !folders.isEmpty else { throw Failure.noConditions(directory: directory) }
        return folders
    }

    /// The system's reason for a failed file operation (its POSIX error where there is one).
    static func reason(_ error: Error) -> String {
        let ns = error as NSError
        if let posix = (ns.userInfo[NSUnderlyingErrorKey] as? NSError), posix.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(posix.code)))
        }
        return ns.code == NSFileReadNoPermissionError ? "permission denied" : ns.localizedDescription
    }

    /// What a set's truth files hold, read before any condition is fused (`preflight`).
    public struct SetTruth: Sendable {
        /// Per condition folder: `condition.ambientLux` (nil: absent).
        public var ambientLux: [Double?]
        /// Conditions whose truth has label maps (`labels`, `honesty`): the confidence honesty is measured on them.
        public var labelledCount: Int
        /// Conditions whose truth has the true exposure ratio.
        public var trueRatioCount: Int
        /// Per condition folder: its truth.json and the camera and flash it names (`camera.name`,
        /// `flash.name`, as `synth` writes them; nil: not recorded).
        public var devices: [(truthFile: String, camera: String?, flash: String?)] = []

        /// One warning per camera or flash that conditions' truth.json name other than the profiles'
        /// (`CameraProfile.name`, `FlashProfile.name`), naming how many and the first: a profile of
        /// another device gives that device's colours with full measurement confidence (a probe's
        /// Sigma renders scored with the Nikon profiles: `constantColor` at 0.964, every confident
        /// pixel > 3 ΔE00 off), which only the accuracy shows. Empty where every name agrees or
        /// none is recorded; a profile named by `calibrate chart` after its capture
        /// (`DefaultProfileName`) names no device and is not compared.
        public func deviceMismatchWarnings(camera: CameraProfile, cameraPath: String, flash: FlashProfile, flashPath: String) -> [String] {
            func lines(_ names: [(file: String, name: String?)], profile: String, path: String, kind: String) -> [String] {
                guard !DefaultProfileName.isDefault(profile) else { return [] }
                var firstFile: [String: String] = [:], count: [String: Int] = [:], order: [String] = []
                for (file, name) in names {
                    guard let name, name != profile else { continue }
                    if firstFile[name] == nil { firstFile[name] = file; order.append(name) }
                    count[name, default: 0] += 1
                }
                return order.map { name in
                    "warning: \(count[name]!) of \(names.count) condition(s) were captured with \(kind) '\(name)' (truth.json, e.g. \(firstFile[name]!)), and \(path) is '\(profile)': a profile of another \(kind) gives that \(kind)'s colours with full measurement confidence, which only the accuracy shows"
                }
            }
            return lines(devices.map { ($0.truthFile, $0.camera) }, profile: camera.name, path: cameraPath, kind: "camera")
                + lines(devices.map { ($0.truthFile, $0.flash) }, profile: flash.name, path: flashPath, kind: "flash")
        }
    }

    /// Where validate's user gives an exposure a frame lacks: its file (validate has no option for it).
    public static let exposureHint = "the tags in the file (validate takes each frame's exposure from its EXIF; write them with e.g. exiftool -ExposureTime=1/60 -FNumber=2.8 -ISO=100)"

    /// Reads every condition's truth.json before the run: each must describe the first one's chart
    /// (the same patch names in the same order, the same reference values within 0.01 CIELAB unit;
    /// `Failure.chartMismatch`: the set's figures compare each patch across the conditions, by
    /// position), and `condition.ambientLux`, where present, must be a number ≥ 0. Each condition's
    /// two frames must be TIFFs this tool reads (`TIFFReader.checkHeader`) with a valid exposure and
    /// no ICC profile the run would refuse (`LinearInput.profileToInvert`: a non-linear one unless
    /// `linearizeICC`).
    /// The first key of a condition's truth.json that `validate` reads and that holds another type
    /// than the one `synth` writes (nil: none). Read as absent, such a key skipped its check without
    /// a word: `"ratioFlashToAmbient": "0.5"` passed `--max-ratio-error` on a set it failed, `"size":
    /// ["10", "10"]` passed the size check, `"camera": 5` the other-camera warning (a probe, session 50).
    /// A key that is absent or null is absent, as before.
    static func truthTypeProblem(_ json: JSONValue) -> (key: String, expected: String)? {
        guard let root = json.object else { return ("(top level)", "an object") }
        func present(_ v: JSONValue?) -> JSONValue? { v == nil || v == .null ? nil : v }
        if let size = present(root["size"]), !(size.doubles?.count == 2) { return ("size", "[width, height], two numbers") }
        for key in ["condition", "camera", "flash", "exposure"] {
            if let v = present(root[key]), v.object == nil { return (key, "an object") }
        }
        for key in ["camera", "flash"] {
            if let name = present(root[key]?.object?["name"]), name.string == nil { return ("\(key).name", "a string") }
        }
        if let exposure = root["exposure"]?.object {
            for key in ["ratioFlashToAmbient", "trueAmbientToFlashRatio", "effectiveAmbientToFlashRatio", "nominalAmbientToFlashRatio"] {
                if let v = present(exposure[key]), v.double == nil { return ("exposure.\(key)", "a number") }
            }
        }
        if let labels = present(root["labels"]), labels.object == nil { return ("labels", "an object naming the label maps") }
        return nil
    }

    public static func preflight(folders: [String], linearizeICC: Bool = false) throws -> SetTruth {
        var first: (file: String, chart: ChartDescription)? = nil
        var truth = SetTruth(ambientLux: [], labelledCount: 0, trueRatioCount: 0)
        for folder in folders {
            // Each frame a TIFF this tool reads, with an exposure a camera records (its header and
            // tags; the samples are read when the condition runs).
            var flashSize = (width: 0, height: 0)
            for role in [FrameRole.flash, .ambient] {
                let path = (folder as NSString).appendingPathComponent(role.rawValue + ".tif")
                let header = try TIFFReader.checkHeader(path: path)
                _ = try InputFrame.exposure(of: header.exposure, path: path, role: role, override: nil, overrideHint: exposureHint)
                _ = try LinearInput.profileToInvert(header.iccProfile, path: path, linearizeICC: linearizeICC)
                if role == .flash { flashSize = (header.width, header.height) }
            }
            let file = (folder as NSString).appendingPathComponent("truth.json")
            let json = try JSONValue.read(path: file)
            if let (key, expected) = Self.truthTypeProblem(json) { throw JSONFileError.invalidValue(file: file, key: key, expected: expected) }
            let chart = try ChartDescription(json: json, file: file)
            // truth.json of this capture, its chart's squares inside the frames: said of truth.json
            // before any condition is fused (a square outside was said of flash.tif once its condition ran).
            if let size = json.object?["size"]?.doubles, size.count == 2, Int(size[0]) != flashSize.width || Int(size[1]) != flashSize.height {
                throw Failure.truthSizeMismatch(file: file, truth: size.map { Int($0) }, frames: [flashSize.width, flashSize.height])
            }
            for p in chart.patches where !PatchSquare.fits(center: p.center, halfSize: p.halfSize, width: flashSize.width, height: flashSize.height) {
                throw Failure.patchOutsideFrames(file: file, patch: p.name, width: flashSize.width, height: flashSize.height)
            }
            if let f = first {
                let names = chart.patches.map(\.name), firstNames = f.chart.patches.map(\.name)
                if names.count != firstNames.count {
                    throw Failure.chartMismatch(file: file, firstFile: f.file, detail: "\(names.count) patches against \(firstNames.count)")
                }
                if let k = names.indices.first(where: { names[$0] != firstNames[$0] }) {
                    throw Failure.chartMismatch(file: file, firstFile: f.file,
                                                detail: "patch \(k + 1) is '\(names[k])' there, '\(firstNames[k])' in the first")
                }
                if let k = chart.patches.indices.first(where: {
                    let d = chart.patches[$0].labD65 - f.chart.patches[$0].labD65
                    return (d * d).sum().squareRoot() > 0.01
                }) {
                    throw Failure.chartMismatch(file: file, firstFile: f.file, detail: "patch '\(names[k])' has other reference L*a*b*")
                }
            } else {
                first = (file, chart)
            }
            let condition = json.object?["condition"]?.object
            if let value = condition?["ambientLux"], value != .null {
                guard let lux = value.double, lux >= 0, lux.isFinite else { throw Failure.invalidLux(file: file) }
                truth.ambientLux.append(lux)
            } else {
                truth.ambientLux.append(nil)
            }
            if json.object?["labels"] != nil { truth.labelledCount += 1 }
            truth.devices.append((file, json.object?["camera"]?.object?["name"]?.string, json.object?["flash"]?.object?["name"]?.string))
            let ratios = ExposureRatioScore.truth(in: json)
            if ratios.trueRatio != nil || ratios.effective != nil { truth.trueRatioCount += 1 }
        }
        return truth
    }

    /// Fuses one condition folder (XYZ linear output) and scores its chart (from `truth.json`'s
    /// `chart`) against the reference; the ambient photo for the variance reduction is the ambient
    /// frame rendered with gray-world white balance (`AmbientPhotoRendering`).
    /// `countColorimetricUncertainty`: see `FusionOptions.countColorimetricUncertainty`.
    /// The frames are read as `fuse` reads them (`InputFrame.load`: a non-linear ICC profile refused
    /// unless `linearizeICC`, the exposure from EXIF alone); `warn` hears each frame's warnings as it
    /// is read, and `cameraSource` names the camera profile in them and in the condition's `fusionWarnings`.
    public static func score(folder: String, camera: CameraProfile, flash: FlashProfile,
                             countColorimetricUncertainty: Bool = true, linearizeICC: Bool = false,
                             cameraSource: String = "the camera profile",
                             warn: (String) -> Void = { _ in }) throws -> ConditionScore {
        func path(_ name: String) -> String { (folder as NSString).appendingPathComponent(name) }
        let truthPath = path("truth.json")
        let truth = try JSONValue.read(path: truthPath)
        let chart = try ChartDescription(json: truth, file: truthPath)
        let lux = truth.object?["condition"]?.object?["ambientLux"]?.double
        func frame(_ role: FrameRole) throws -> RawFrame {
            let loaded = try InputFrame.load(path: path(role.rawValue + ".tif"), role: role, exposureOverride: nil, linearizeICC: linearizeICC,
                                             whiteLevel: (camera.whiteLevel, cameraSource), overrideHint: exposureHint)
            loaded.warnings.forEach(warn)
            return loaded.frame
        }
        let f = try frame(.flash), a = try frame(.ambient)
        // The chart's positions are in pixels of the capture truth.json describes.
        if let size = truth.object?["size"]?.doubles, size.count == 2,
           Int(size[0]) != f.image.width || Int(size[1]) != f.image.height {
            throw Failure.truthSizeMismatch(file: truthPath, truth: size.map { Int($0) }, frames: [f.image.width, f.image.height])
        }
        var options = FusionOptions()
        options.linearSpace = .xyz
        options.countColorimetricUncertainty = countColorimetricUncertainty
        let result = try FusionPipeline.run(flash: f, ambient: a, camera: camera, flashProfile: flash, options: options)
        let ambientFrame = ExposureNormalization.normalize(raw: a.image, exposure: a.exposure, camera: camera)
        let ambientRendering = AmbientPhotoRendering.render(ambientFrame, flash: flash, primaries: .sRGB).rendering
        let ambientXYZ = ambientRendering.linearOutput(ambientFrame.image, space: .xyz)
        // The output and confidence are in flash-frame geometry (flash labels); the ambient photo is
        // the unregistered ambient frame, sampled at the same chart squares (ambient labels).
        let masks = try patchLabelMasks(truth: truth, truthPath: truthPath, folder: folder, chart: chart)
        // An output pixel samples its patch where the flash frame saw the patch there and the ambient
        // frame saw it at the pixel's true position in it (an object that moved between the frames
        // leaves a ghost that is neither).
        var outputMask = masks.flash
        if let flashMask = masks.flash, let ambient = masks.ambient {
            guard let geometry = try trueAmbientFromFlash(truth: truth, truthPath: truthPath) else {
                throw JSONFileError.missingKey(file: truthPath, key: "ambientFromFlash")  // needed with labels.ambient
            }
            outputMask = flashMask.requiringAgreement(with: ambient, ambientFromFlash: geometry)
        }
        var score: ConditionScore
        do {
            score = try ValidationScoring.score(
                name: (folder as NSString).lastPathComponent, ambientLux: lux, chart: chart, linearXYZ: result.linear!,
                ambientPhotoXYZ: ambientXYZ, confidence: result.confidence, decision: result.report.decision,
                centerWeightedConfidence: result.report.centerWeightedMeanConfidence,
                ambientFromFlash: result.registration.ambientFromFlash,
                outputLabels: outputMask, ambientLabels: masks.ambient, pixelFlags: result.pixelFlags, file: path("flash.tif"),
                ambientFile: path("ambient.tif"))
        } catch {
            // A chart rendered without light is most often frames whose tags are far off, which the
            // fusion measured: said instead of the flash profile it would otherwise point at. (Matched
            // with `switch`: a typed `catch` pattern crashed the 6.3 compiler's ownership verifier.)
            switch error {
            case .noNeutralPatch(let file, nil): throw PatchSamplingError.noNeutralPatch(file: file, cause: Self.exposureTagsProblem(result))
            default: throw error
            }
        }
        score.honesty = try honesty(truth: truth, truthPath: truthPath, folder: folder, linearXYZ: result.linear!,
                                    confidence: result.confidence, flashLabels: masks.flash)
        // What fuse would warn about this pair, naming the camera profile as given.
        score.fusionWarnings = FusionWarnings.lines(result, cameraPath: cameraSource,
                                                    blackLevel: camera.blackLevel, whiteLevel: camera.whiteLevel)
        let ratios = ExposureRatioScore.truth(in: truth)
        score.exposureRatio = ExposureRatioScore(
            nominal: result.report.exposure.ambientToFlashRatio, estimated: ExposureRatioScore.estimate(in: result.report),
            trueRatio: ratios.trueRatio, effective: ratios.effective,
            estimatedRelativeUncertainty: result.report.exposure.ambientRatio?.relativeUncertainty)
        return score
    }

    /// What the fusion measured that says a pair's exposure tags are far off (as `fuse` warns): a flash
    /// frame holding far less ambient light than they predict, no flash light at all, or shadow edges
    /// beyond the searched range; nil when it measured none of these.
    static func exposureTagsProblem(_ result: FusionResult) -> String? {
        let tags = "the frames' exposure tags are far off (swapped between the frames, typed wrong, or of other captures?)"
        if let light = result.report.flashLight {
            if light.noFlashLight {
                return "no flash light was measured (the flash frame is the ambient frame scaled): did the flash fire, and are both frames' exposure tags the captures'?"
            }
            if light.holdsLessAmbientThanTags {
                return "the flash frame holds " + String(format: "%.2f", light.ambientScale[1]) + "× the ambient light its exposure tags predict: \(tags)"
            }
        }
        if let far = result.ambientRatio.edgeRatioBeyondRange {
            return "the ambient shadow edges put the ambient-to-flash exposure ratio at " + String(format: "%.2f", far) + "× EXIF's: \(tags)"
        }
        return nil
    }

    /// The label maps of a condition whose truth has them (`labels.flash`, optional `labels.ambient`),
    /// with each chart patch's label: the `label` of the `materials[]` entry named as the patch.
    /// Both nil when the truth has no `labels`.
    ///
    /// - Throws: a one-line error naming truth.json (missing keys, a patch without a material) or the
    ///   label map (unreadable, not single-channel).
    public static func patchLabelMasks(truth: JSONValue, truthPath: String, folder: String,
                                       chart: ChartDescription) throws -> (flash: PatchLabelMask?, ambient: PatchLabelMask?) {
        guard let labels = truth.object?["labels"] else { return (nil, nil) }
        let reader = try JSONObjectReader(labels, file: truthPath, prefix: "labels.")
        guard let materials = truth.object?["materials"]?.array else {
            throw JSONFileError.missingKey(file: truthPath, key: "materials")
        }
        var byName: [String: Int] = [:]
        for (i, m) in materials.enumerated() {
            let r = try JSONObjectReader(m, file: truthPath, prefix: "materials[\(i)].")
            let name = try r.string("name")
            if byName[name] == nil { byName[name] = Int(try r.number("label")) }
        }
        let patchLabels = try chart.patches.map { p in
            guard let l = byName[p.name] else { throw Failure.patchWithoutMaterial(file: truthPath, patch: p.name) }
            return l
        }
        func mask(_ key: String) throws -> PatchLabelMask? {
            guard labels.object?[key] != nil else { return nil }
            let (map, file) = try labelMap(reader, key: key, folder: folder)
            return PatchLabelMask(map: map, labels: patchLabels, file: file)
        }
        guard let flashMask = try mask("flash") else { throw JSONFileError.missingKey(file: truthPath, key: "labels.flash") }
        return (flashMask, try mask("ambient"))
    }

    /// The true geometry of a synthetic condition, `truth.json`'s `ambientFromFlash.matrix` (3 rows of 3
    /// finite numbers: ambient pixel coordinates from flash ones); nil when the truth has none.
    static func trueAmbientFromFlash(truth: JSONValue, truthPath: String) throws -> Matrix3? {
        guard let geometry = truth.object?["ambientFromFlash"] else { return nil }
        return try JSONObjectReader(geometry, file: truthPath, prefix: "ambientFromFlash.").matrix3("matrix")
    }

    /// Reads the label map truth names under `labels.<key>` (single channel) and its path.
    static func labelMap(_ labels: JSONObjectReader, key: String, folder: String) throws -> (PlanarImage, String) {
        let file = (folder as NSString).appendingPathComponent(try labels.string(key))
        let map = try TIFFReader.read(path: file).image
        guard map.channelCount == 1 else { throw Failure.notSingleChannel(file: file) }
        return (map, file)
    }

    /// The confidence honesty of a fused condition when its truth names a label map
    /// (`labels.flash`) and the materials' reference colours (`materials[]`: `label`, `labD65`);
    /// nil when it does not.
    /// `flashLabels`: the flash label map when the caller has read it already (`patchLabelMasks`).
    public static func honesty(truth: JSONValue, truthPath: String, folder: String, linearXYZ: PlanarImage,
                               confidence: PlanarImage, flashLabels: PatchLabelMask? = nil) throws -> ConfidenceHonesty? {
        guard let labels = truth.object?["labels"] else { return nil }
        let reader = try JSONObjectReader(labels, file: truthPath, prefix: "labels.")
        let mixed = Int(try reader.optionalNumber("mixedLabel") ?? 0)
        guard let materials = truth.object?["materials"]?.array else {
            throw JSONFileError.missingKey(file: truthPath, key: "materials")
        }
        var reference: [Int: SIMD3<Double>] = [:]
        for (i, m) in materials.enumerated() {
            let r = try JSONObjectReader(m, file: truthPath, prefix: "materials[\(i)].")
            let lab = try r.numbers("labD65", count: 3)
            reference[Int(try r.number("label"))] = SIMD3(lab[0], lab[1], lab[2])
        }
        let (map, file) = try flashLabels.map { ($0.map, $0.file) } ?? labelMap(reader, key: "flash", folder: folder)
        return try ConfidenceHonesty.measure(linearXYZ: linearXYZ, confidence: confidence, labels: map,
                                             referenceLab: reference, mixedLabel: mixed, file: file)
    }
}
