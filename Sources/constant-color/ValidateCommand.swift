import ArgumentParser
import ConstantColor
import ConstantColorCalibration
import ConstantColorIO
import Foundation

/// `constant-color validate` (SPEC 3, 5): fuse every condition of a fixture set and score it.
struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Run the pipeline on every condition folder of a fixture set and report SPEC 5 metrics.",
        discussion: """
            DIR holds one folder per lighting condition (SPEC 4.5): flash.tif, ambient.tif (EXIF \
            exposure) and truth.json with the chart description under "chart". Each condition is fused \
            (linear XYZ output) and every patch is the median of its square, over the pixels with a \
            measurement (not clipped in the flash frame, an ambient sample neither clipped nor missing, \
            the frames not disagreeing there: elsewhere the output is the gap fill; the report gives each \
            patch's clipped and disagreeing shares). \
            Reported per condition and \
            over the set: accuracy (CIEDE2000 after one scalar exposure fit on the neutral patches), \
            repeatability (mean and 90th percentile over patches), variance reduction against the \
            ambient frame rendered with gray-world white balance, mean confidence on the patches (from \
            the confidence map: the colour confidence, or the measurement confidence with \
            --no-colorimetric-uncertainty), the center-weighted measurement confidence and the \
            decisions (which follow it). Where a condition has per-pixel truth (truth.json labels + materials, from synth \
            --truth-maps), the confidence honesty of issue 7 over its pixels (ΔE00 chroma: CIEDE2000 \
            after matching each pixel's Y to the reference): among confidence >= 0.8, the fraction \
            more than 3 from the truth; among pixels within 1.5, the fraction with confidence < 0.5. \
            With label maps, each patch is the median over its own material's pixels only (flash \
            labels for the output and confidence, ambient labels for the ambient photo); a patch with \
            fewer than 25 % own-label pixels in its square is occluded in that condition and left out \
            of its metrics (listed in the report). A patch with more than half of its pixels clipped \
            in a condition's flash frame, or with its registered ambient sample clipped or missing, is \
            left out of that condition's metrics the same way (the \
            output there is the gap fill), and listed; a condition with more than half of its \
            patches so clipped is refused as overexposed. \
            The frames are read as fuse reads them: a non-linear ICC profile is refused (before the \
            run) unless --linearize-icc. \
            The ambient-to-flash exposure ratio: EXIF, the pipeline's estimate (report \
            exposure.estimatedAmbientToFlashRatio, when present) and the truth. \
            The numbers depend on the profiles: --camera and --flash, or, for each not given, the \
            set's own profiles.json ({"camera": PATH, "flash": PATH}, paths relative to DIR), so that \
            `validate DIR` (SPEC 3) runs a set that names its profiles; without either it is an \
            error. A plain-text \
            table goes to standard output, one progress line per condition to standard error. Exit 1 \
            when a tolerance fails, 2 on bad input.
            """)

    @Argument(help: "Folder of condition folders.") var directory: String
    @Option(help: "Camera profile (JSON); default: the one DIR/profiles.json names.") var camera: String?
    @Flag(inversion: .prefixedNo,
          help: "Count the flash profile's colorimetric uncertainty (the matrix's expected error by colour) in the confidence map, when it has one (the decisions do not depend on it).")
    var colorimetricUncertainty = true
    @Option(help: "Flash profile (JSON); default: the one DIR/profiles.json names.") var flash: String?
    @Flag(help: "Invert the frames' non-linear ICC profiles' curves instead of refusing them (as fuse --linearize-icc).")
    var linearizeIcc = false
    @Option(help: "Write the metrics as JSON here (a quantity that could not be measured is null).") var json: String?
    @Option(help: "Write a self-contained HTML report here.") var html: String?
    @Option(parsing: .unconditional, help: "Tolerance: mean accuracy over the conditions, ΔE00.") var maxAccuracy: Double = 3.0
    @Option(parsing: .unconditional, help: "Only conditions whose truth gives an ambient illuminance at most this (lux) count for the accuracy tolerance.")
    var accuracyMaxLux: Double?
    @Option(parsing: .unconditional, help: "Tolerance: mean repeatability, ΔE00 (default 1.5; given, a set it cannot be measured on is an error).")
    var maxRepeatability: Double?
    @Option(parsing: .unconditional, help: "Tolerance: variance reduction against the ambient photo, 0...1 (default 0.9; given, a set it cannot be measured on is an error).")
    var minVarianceReduction: Double?

    /// The repeatability tolerance, given or default.
    var repeatabilityTolerance: Double { maxRepeatability ?? 1.5 }
    /// The variance reduction tolerance, given or default.
    var varianceReductionTolerance: Double { minVarianceReduction ?? 0.9 }
    @Option(parsing: .unconditional, help: "Tolerance: mean confidence on the patches, 0...1 (not checked unless given).") var minPatchConfidence: Double?
    @Option(parsing: .unconditional, help: "Tolerance: fraction of pixels with confidence >= 0.8 more than 3 ΔE00 chroma from the truth (issue 7: 0.01; not checked unless given).")
    var maxConfidentWrong: Double?
    @Option(parsing: .unconditional, help: "Tolerance: fraction of pixels within 1.5 ΔE00 chroma of the truth with confidence < 0.5 (issue 7: 0.1; not checked unless given).")
    var maxAccurateLowConfidence: Double?
    @Option(parsing: .unconditional, help: "Tolerance: max |estimated / true - 1| of the ambient-to-flash ratio (issue 7: 0.01; not checked unless given).")
    var maxRatioError: Double?

    func validate() throws {
        for (name, v) in [("--max-accuracy", maxAccuracy), ("--max-repeatability", repeatabilityTolerance)] where !(v >= 0 && v.isFinite) {
            throw ValidationError("\(name) must be a finite number >= 0")
        }
        if !(varianceReductionTolerance <= 1 && varianceReductionTolerance.isFinite) { throw ValidationError("--min-variance-reduction must be <= 1") }
        if let c = minPatchConfidence, !(c >= 0 && c <= 1) { throw ValidationError("--min-patch-confidence must be in [0, 1]") }
        for (name, v) in [("--max-confident-wrong", maxConfidentWrong), ("--max-accurate-low-confidence", maxAccurateLowConfidence)] {
            if let v, !(v >= 0 && v <= 1) { throw ValidationError("\(name) must be in [0, 1]") }
        }
        if let v = maxRatioError, !(v >= 0 && v.isFinite) { throw ValidationError("--max-ratio-error must be a finite number >= 0") }
        if let v = accuracyMaxLux, !(v >= 0 && v.isFinite) { throw ValidationError("--accuracy-max-lux must be a finite number >= 0") }
        if let json, let html, URL(fileURLWithPath: json).standardizedFileURL == URL(fileURLWithPath: html).standardizedFileURL {
            throw ValidationError("--json and --html name the same file, \(json)")
        }
    }

    func run() throws {
        let progress = Progress()
        // The folder first: a file or a missing folder is said as such, whatever the profiles.
        let folders = try ValidationRun.conditionFolders(in: directory)
        let profiles = try SetProfiles(directory: directory, camera: camera, flash: flash)
        let camera = profiles.camera, flash = profiles.flash
        let cameraProfile = try CameraProfile(path: camera)
        let flashProfile = try FlashProfile(path: flash)
        let inputs = [camera, flash] + [profiles.source].compactMap { $0 } + folders.flatMap { f in ["flash.tif", "ambient.tif", "truth.json", "labels.tif", "ambient-labels.tif"].map { (f as NSString).appendingPathComponent($0) } }
        // The outputs checked before the (long) run, so that it cannot end in an unwritable report.
        for out in [json, html].compactMap({ $0 }) { try AtomicFile.checkDestination(out, protectedPaths: inputs) }
        // The truth files read first: one chart for the set, and each asked-for check measurable.
        let truth = try ValidationRun.preflight(folders: folders, linearizeICC: linearizeIcc)
        if accuracyMaxLux != nil, let k = truth.ambientLux.firstIndex(where: { $0 == nil }) {
            throw CLIError(file: (folders[k] as NSString).appendingPathComponent("truth.json"),
                           problem: "has no condition.ambientLux, which --accuracy-max-lux selects the conditions by")
        }
        // The conditions the accuracy is measured on are known from the truth files: none is refused
        // before the run, not after it.
        if let limit = accuracyMaxLux, !truth.ambientLux.contains(where: { ConditionScore.illuminance($0, atMost: limit) }) {
            let lux = truth.ambientLux.compactMap { $0 }
            throw CLIError(file: directory, problem: String(format: "no condition has truth.json condition.ambientLux <= --accuracy-max-lux %g (the set's run from %g to %g lux)", limit, lux.min() ?? 0, lux.max() ?? 0))
        }
        if truth.labelledCount == 0, let flag = maxConfidentWrong != nil ? "--max-confident-wrong"
            : maxAccurateLowConfidence != nil ? "--max-accurate-low-confidence" : nil {
            throw CLIError(file: directory, problem: "\(flag) cannot be checked: no condition's truth.json has label maps (the per-pixel truth 'labels' and 'materials' that synth --truth-maps writes)")
        }
        // Repeatability and variance reduction compare conditions: a tolerance given for a set of one
        // cannot be checked (the defaults are then skipped, and said).
        if folders.count < 2, let flag = maxRepeatability != nil ? "--max-repeatability" : minVarianceReduction != nil ? "--min-variance-reduction" : nil {
            throw CLIError(file: directory, problem: "\(flag) cannot be checked: the set has one condition, and it compares conditions")
        }
        if maxRatioError != nil && truth.trueRatioCount == 0 {
            throw CLIError(file: directory, problem: "--max-ratio-error cannot be checked: no condition's truth.json has the true exposure ratio (exposure.trueAmbientToFlashRatio)")
        }
        // The profiles' notes, and the first condition's frame warnings, once the set, the outputs and
        // the first condition are known good: a run refused by then prints its one error line alone.
        var held: [String]? = [profiles.sourceLine].compactMap { $0 }
            + ProfileWarnings.lines(camera: cameraProfile, cameraPath: camera, flash: flashProfile, flashPath: flash,
                                    countColorimetricUncertainty: colorimetricUncertainty)
            + truth.deviceMismatchWarnings(camera: cameraProfile, cameraPath: camera, flash: flashProfile, flashPath: flash)
        func say(_ line: String) {
            if held != nil { held!.append(line) } else { progress.say(line) }
        }
        var scores: [ConditionScore] = []
        for (k, folder) in folders.enumerated() {
            let start = Date()
            // The frames read as fuse reads them (ICC, levels, exposure), their warnings said.
            let s = try ValidationRun.score(folder: folder, camera: cameraProfile, flash: flashProfile,
                                            countColorimetricUncertainty: colorimetricUncertainty, linearizeICC: linearizeIcc,
                                            cameraSource: camera, warn: say)
            scores.append(s)
            for line in held ?? [] { progress.say(line) }
            held = nil
            say(String(format: "[%d/%d] %@: ΔE00 mean %.2f, patch confidence %.3f, %@ (%.2f s)", k + 1, folders.count,
                                s.name, s.meanDeltaE2000, s.meanPatchConfidence, s.decision.rawValue, Date().timeIntervalSince(start)))
        }
        let set = SetScore(scores)
        let accuracyConditions = accuracyMaxLux.map { limit in scores.filter { $0.ambientLux(atMost: limit) } } ?? scores
        guard !accuracyConditions.isEmpty else {
            throw CLIError(file: directory, problem: "no condition has truth.json condition.ambientLux <= --accuracy-max-lux")
        }
        let accuracy = SetScore(accuracyConditions).meanAccuracy
        let luxNote = accuracyMaxLux.map { String(format: " (<= %g lux)", $0) } ?? ""
        var checks = [
            ValidationHTMLReport.Check(metric: "accuracy, mean ΔE00\(luxNote)", value: accuracy,
                                       tolerance: String(format: "<= %g", maxAccuracy), passed: accuracy <= maxAccuracy),
        ]
        if scores.count >= 2 {
            checks.append(ValidationHTMLReport.Check(metric: "repeatability, mean ΔE00", value: set.meanRepeatability,
                                                     tolerance: String(format: "<= %g", repeatabilityTolerance),
                                                     passed: set.meanRepeatability <= repeatabilityTolerance))
            // Undefined where the ambient photos do not vary across the conditions: nothing to reduce,
            // so no check (it failed as "variance reduction nan" on a set of identical conditions). A
            // NaN for any other reason still fails.
            if set.meanAmbientPhotoVariance <= SetScore.leastAmbientVariance {
                if minVarianceReduction != nil {
                    throw CLIError(file: directory, problem: "--min-variance-reduction cannot be checked: the ambient photos' patch colours do not vary across the conditions (under half a CIELAB unit RMS), so there is no variance to reduce")
                }
                progress.say("variance reduction not checked: the ambient photos' patch colours do not vary across the conditions (under half a CIELAB unit RMS), so there is no variance to reduce")
            } else {
                checks.append(ValidationHTMLReport.Check(metric: "variance reduction", value: set.varianceReduction,
                                                         tolerance: String(format: ">= %g", varianceReductionTolerance),
                                                         passed: set.varianceReduction >= varianceReductionTolerance))
            }
        }
        if let c = minPatchConfidence {
            checks.append(ValidationHTMLReport.Check(metric: "mean patch confidence", value: set.meanPatchConfidence,
                                                     tolerance: String(format: ">= %g", c), passed: set.meanPatchConfidence >= c))
        }

        // Issue 7 tolerances: a figure that cannot be measured (no label map, no estimate) fails the check.
        if let t = maxConfidentWrong {
            let v = set.honesty?.confidentWrongFraction
            checks.append(ValidationHTMLReport.Check(metric: "confident (>= 0.8) but > 3 ΔE00 chroma, fraction of pixels", value: v ?? .nan,
                                                     tolerance: String(format: "<= %g", t), passed: v.map { $0 <= t } ?? false))
        }
        if let t = maxAccurateLowConfidence {
            let v = set.honesty?.accurateLowConfidenceFraction
            checks.append(ValidationHTMLReport.Check(metric: "within 1.5 ΔE00 chroma but confidence < 0.5, fraction of pixels", value: v ?? .nan,
                                                     tolerance: String(format: "<= %g", t), passed: v.map { $0 <= t } ?? false))
        }
        if let t = maxRatioError {
            guard let v = set.ratioErrorMax else {
                throw CLIError(file: directory, problem: "--max-ratio-error cannot be checked: no condition's report has an estimated exposure ratio")
            }
            checks.append(ValidationHTMLReport.Check(metric: "ambient-to-flash ratio estimate, max relative error", value: v,
                                                     tolerance: String(format: "<= %g", t), passed: v <= t))
        }

        func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
            let fill = String(repeating: " ", count: max(0, width - text.count))
            return left ? text + fill : fill + text
        }
        print(pad("condition", 28, left: true) + pad("lux", 7) + pad("ΔE00 mean", 10) + pad("ΔE00 max", 10) + pad("conf", 8)
              + pad("cw conf", 9) + "  decision")
        for s in scores {
            print(pad(s.name, 28, left: true) + pad(s.ambientLux.map { String(format: "%.0f", $0) } ?? "-", 7)
                  + String(format: "%10.2f%10.2f%8.3f%9.3f  ", s.meanDeltaE2000, s.maxDeltaE2000, s.meanPatchConfidence, s.centerWeightedConfidence)
                  + s.decision.rawValue)
        }
        let spread = scores.count >= 2
            ? String(format: "repeatability mean %.3f p90 %.3f ΔE00; variance reduction %@", set.meanRepeatability,
                     set.p90Repeatability,
                     // (Not measurable where the ambient photos do not vary: the JSON's null, said as n/a.)
                     set.varianceReduction.isFinite ? String(format: "%.1f %%", 100 * set.varianceReduction) : "n/a (the ambient photos do not vary)")
            : "repeatability and variance reduction n/a (one condition)"
        print(String(format: "set of %d: accuracy mean %.2f max %.2f ΔE00; %@; patch confidence %.3f; decisions %@",
                     scores.count, set.meanAccuracy, set.maxAccuracy, spread, set.meanPatchConfidence,
                     set.decisions.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")))
        for line in [set.occlusionSummary, set.clippingSummary, set.withoutRepeatabilitySummary].compactMap({ $0 }) { print(line) }
        func pct(_ v: Double?) -> String { v.map { String(format: "%.2f %%", 100 * $0) } ?? "-" }
        func ratio(_ v: Double?) -> String { v.map { String(format: "%.4f", $0) } ?? "-" }
        if scores.contains(where: { $0.honesty != nil || $0.exposureRatio?.estimated != nil || $0.exposureRatio?.effective != nil }) {
            print("confidence honesty (ΔE00 chroma per pixel) and ambient-to-flash exposure ratio:")
            print(pad("condition", 28, left: true) + pad("conf>=0.8", 10) + pad(">3 ΔE", 9) + pad("<=1.5 ΔE", 9) + pad("conf<0.5", 10)
                  + pad("EXIF", 9) + pad("estimate", 9) + pad("true eff", 9) + pad("EXIF err", 10) + pad("est err", 10)
                  + pad("stated σ", 10) + pad("err/σ", 7))
            for s in scores {
                let h = s.honesty, r = s.exposureRatio
                print(pad(s.name, 28, left: true) + pad(h.map { String($0.confidentPixelCount) } ?? "-", 10)
                      + pad(pct(h?.confidentWrongFraction), 9) + pad(h.map { String($0.accuratePixelCount) } ?? "-", 9)
                      + pad(pct(h?.accurateLowConfidenceFraction), 10) + pad(ratio(r?.nominal), 9) + pad(ratio(r?.estimated), 9)
                      + pad(ratio(r?.effective ?? r?.trueRatio), 9) + pad(pct(r?.relativeError(r?.nominal)), 10)
                      + pad(pct(r?.relativeError(r?.estimated)), 10) + pad(pct(r?.estimatedRelativeUncertainty), 10)
                      + pad(r?.estimatedErrorZ.map { String(format: "%+.2f", $0) } ?? "-", 7))
            }
            print("(true eff: the ambient exposure the flash frame's rows received on average relative to the ambient frame's, truth.json exposure.effectiveAmbientToFlashRatio — the true ratio times the flicker's mean row gain — else exposure.trueAmbientToFlashRatio; both errors are against it; stated σ: the relative uncertainty the pipeline states for its estimate, err/σ the estimate's error in units of it)")
            if let h = set.honesty {
                print(String(format: "honesty over %d condition(s), %d labelled pixels: %@ of %d confident pixels are > 3 ΔE00 chroma off (issue 7: <= 1 %%); %@ of %d pixels within 1.5 have confidence < 0.5 (issue 7: <= 10 %%)",
                             set.honestyConditionCount, h.labelledPixelCount, pct(h.confidentWrongFraction), h.confidentPixelCount,
                             pct(h.accurateLowConfidenceFraction), h.accuratePixelCount))
                // Why: the σ each pixel's confidence claims against its true error (ConfidenceHonesty.reliability).
                print("reliability over the same pixels: claimed σ = 3·√(1/conf − 1) against the true ΔE00 chroma error (honest: rms error ≈ rms σ; \(h.unclaimedPixelCount) pixels of confidence 0 claim nothing; 'no colour': no positive luminance, out of both rms)")
                print(pad("claimed σ", 12, left: true) + pad("pixels", 10) + pad("no colour", 10) + pad("rms σ", 8) + pad("rms error", 10) + pad("<=1.5 ΔE", 10))
                for bin in h.reliability where bin.pixelCount > 0 {
                    print(pad(bin.rangeLabel, 12, left: true) + pad(String(bin.pixelCount), 10) + pad(String(bin.pixelCount - bin.finiteCount), 10)
                          + pad(bin.rmsSigma.map { String(format: "%.2f", $0) } ?? "-", 8)
                          + pad(bin.rmsError.map { String(format: "%.2f", $0) } ?? "-", 10) + pad(pct(bin.accurateFraction), 10))
                }
            }
            print("ratio |relative error| vs truth: EXIF mean \(pct(set.nominalRatioErrorMean)) max \(pct(set.nominalRatioErrorMax)); estimate mean \(pct(set.ratioErrorMean)) max \(pct(set.ratioErrorMax))"
                  + (set.ratioErrorZRMS.map { String(format: "; against its stated uncertainty: within 2σ in %d of %d conditions, rms z %.2f", set.ratioWithinTwoUncertainties, set.ratioZCount, $0) } ?? "")
                  + (set.ratioErrorMean != nil ? ""
                     : scores.contains { $0.exposureRatio?.estimated != nil }
                     ? " (no truth.json gives the true ratio, exposure.effectiveAmbientToFlashRatio or trueAmbientToFlashRatio, to measure the errors against)"
                     : " (no report carries exposure.\(ExposureRatioScore.estimatedKey))"))
        }
        if scores.count < 2 { print("n/a repeatability and variance reduction (they compare conditions; the set has one)") }
        for c in checks {
            print(String(format: "%@ %@: %.3f (tolerance %@)", c.passed ? "pass" : "FAIL", c.metric, c.value, c.tolerance))
        }

        if let path = json {
            let document: JSONValue = .object([
                "version": .string(ConstantColorVersion.current), "directory": .string(directory),
                "camera": .string(camera), "flash": .string(flash),
                "set": set.json, "accuracyToleranceConditions": .number(Double(accuracyConditions.count)),
                "checks": .array(checks.map { .object(["metric": .string($0.metric), "value": .number($0.value),
                                                        "tolerance": .string($0.tolerance), "passed": .bool($0.passed)]) }),
                "conditions": .array(scores.map(\.json)),
            ])
            try AtomicFile.writeJSON([(document.nonFiniteNumbersAsNull, path)], protectedPaths: inputs)
        }
        if let path = html {
            let page = ValidationHTMLReport.html(title: "Constant Color validation: \((directory as NSString).lastPathComponent)",
                                                 conditions: scores, set: set, checks: checks, profiles: "\(camera), \(flash)")
            try AtomicFile.write(Data(page.utf8), to: path, protectedPaths: inputs)
        }
        let failed = checks.filter { !$0.passed }
        if !failed.isEmpty {
            throw CheckFailed(message: failed.map { String(format: "%@ %.3f (tolerance %@)", $0.metric, $0.value, $0.tolerance) }.joined(separator: "; "))
        }
    }
}

/// The profiles a validation uses: those given, and for each not given the one the set's own
/// `profiles.json` names (`{"camera": PATH, "flash": PATH}`, relative to the set's folder).
struct SetProfiles {
    /// The camera and flash profiles' paths.
    var camera: String, flash: String
    /// The `profiles.json` either came from (nil: both given).
    var source: String?
    /// Which of them came from `source` (the others were given).
    var fromSource: (camera: Bool, flash: Bool) = (false, false)

    /// What was taken from the set's `profiles.json`, for the run's first line (nil: nothing).
    var sourceLine: String? {
        guard let source else { return nil }
        let taken = [fromSource.camera ? "camera \(camera)" : nil, fromSource.flash ? "flash \(flash)" : nil].compactMap { $0 }
        return "profiles from \(source): " + taken.joined(separator: ", ")
    }

    /// The file name a set's folder names its profiles in.
    static let fileName = "profiles.json"

    /// Resolves the profiles; refuses where one is neither given nor named by the set.
    init(directory: String, camera: String?, flash: String?) throws {
        if let camera, let flash {
            self.camera = camera; self.flash = flash; source = nil
            return
        }
        let file = (directory as NSString).appendingPathComponent(Self.fileName)
        guard FileManager.default.fileExists(atPath: file) else {
            throw CLIError(file: directory, problem: "has no \(Self.fileName) naming the set's profiles ({\"camera\": PATH, \"flash\": PATH}, relative to the folder); give --camera and --flash (the numbers depend on them)")
        }
        let named = try JSONValue.read(path: file).object ?? [:]
        func path(_ key: String) throws -> String {
            guard let value = named[key]?.string, !value.isEmpty else {
                throw CLIError(file: file, problem: "key '\(key)' must be a non-empty string: the \(key) profile's path, relative to \(directory)")
            }
            return value.hasPrefix("/") ? value : ((directory as NSString).appendingPathComponent(value) as NSString).standardizingPath
        }
        self.camera = try camera ?? path("camera")
        self.flash = try flash ?? path("flash")
        source = file
        fromSource = (camera == nil, flash == nil)
    }
}
