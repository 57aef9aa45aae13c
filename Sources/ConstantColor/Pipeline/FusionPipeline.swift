import Foundation

/// The version of the library and tool.
public enum ConstantColorVersion {
    /// Semantic version string.
    public static let current = "0.1.0"
}

/// One input frame as decoded: camera RGB in data numbers and its exposure.
public struct RawFrame: Sendable {
    /// Camera RGB data numbers (black level not yet subtracted), 3 planes.
    public var image: PlanarImage
    /// The frame's exposure.
    public var exposure: ExposureSettings
    /// Where it came from (for messages).
    public var name: String

    /// Creates a raw frame.
    public init(image: PlanarImage, exposure: ExposureSettings, name: String) {
        self.image = image; self.exposure = exposure; self.name = name
    }

}

/// Options of `FusionPipeline.run`.
public struct FusionOptions: Sendable {
    /// Output primaries of the rendered image (Display P3 by default).
    public var primaries: OutputPrimaries = .displayP3
    /// Space of the linear measurement output.
    public var linearSpace: LinearOutputSpace = .rgb
    /// Whether to produce the linear measurement output (`FusionResult.linear`).
    public var produceLinear = true
    /// Decision threshold on the center-weighted mean confidence.
    public var threshold: Double = ConfidenceSummary.defaultThreshold
    /// A fixed output exposure (linear output units per normalized unit); automatic when nil.
    public var outputScale: Double? = nil
    /// Registration settings.
    public var registration = RegistrationOptions()
    /// Whether to render the fallback (ambient photo) image.
    public var renderFallback = false
    /// Flash-guided noise reduction of the dark-room estimate (stage 4b).
    public var noiseReduction = NoiseReduction()
    /// Relative uncertainty of the ambient-to-flash exposure ratio taken from metadata (see
    /// `Confidence`); used when the ratio is not estimated or no illumination edge is found.
    public var exposureRatioUncertainty: Float = Confidence.defaultExposureRatioUncertainty
    /// Whether the confidence map (`FusionResult.confidence`) counts the flash profile's colorimetric
    /// uncertainty (the 3×3 matrix's expected error by colour, `ColorimetricUncertainty`), when the
    /// profile has one: on by default, so that the map says how close a pixel is to its surface's
    /// true colour (`ColorimetricConfidence`). The gap fill and the decision use the measurement
    /// confidence either way.
    public var countColorimetricUncertainty = true
    /// Whether to estimate the ambient-to-flash ratio and flicker banding from the images (stage 4a,
    /// `AmbientRatioEstimate`) instead of trusting EXIF. Off, EXIF's ratio is subtracted and the
    /// estimate only checks it: where the images contradict it, the confidence counts the difference
    /// (`AmbientRatioEstimate.metadata(height:uncertainty:checkedAgainst:)`).
    public var estimateAmbientRatio = true
    /// With a flash profile that has a shading map, also flatten the flash's fall-off (its colour
    /// shading is always corrected); off by default, see `FlashShading`.
    public var flattenFlashFalloff = false

    /// Default options.
    public init() {}

    /// The thresholds a decision can use.
    public static let thresholdRange: ClosedRange<Double> = 0...1
    /// The fixed output scales accepted: beyond 1e20 the linear output of an ordinary exposure is no
    /// longer finite in 32-bit float.
    public static let outputScaleRange: ClosedRange<Double> = 1e-30...1e20

    /// Throws `FusionError` for a value the pipeline cannot use: a threshold outside
    /// `thresholdRange` or an output scale outside `outputScaleRange` (the command line refuses the
    /// same flags), a noise-reduction radius, block or wide radius under 1 or a regularization that
    /// is not a positive number, an exposure-ratio uncertainty that is not a finite number ≥ 0.
    public func validate() throws {
        func refuse(_ name: String, _ value: Any, _ expected: String) -> FusionError {
            .invalidOption(name: name, value: "\(value)", expected: expected)
        }
        guard Self.thresholdRange.contains(threshold) else { throw refuse("threshold", threshold, "in [0, 1]") }
        if let s = outputScale, !Self.outputScaleRange.contains(s) { throw refuse("outputScale", s, "a positive number from 1e-30 to 1e20") }
        guard exposureRatioUncertainty.isFinite, exposureRatioUncertainty >= 0 else {
            throw FusionError.invalidExposureRatioUncertainty(exposureRatioUncertainty)
        }
        let n = noiseReduction
        guard n.radius >= 1 else { throw refuse("noiseReduction.radius", n.radius, "at least 1") }
        guard n.subsampling >= 1 else { throw refuse("noiseReduction.subsampling", n.subsampling, "at least 1") }
        guard n.regularization > 0 && n.regularization.isFinite else {
            throw refuse("noiseReduction.regularization", n.regularization, "a positive finite number")
        }
        if let r = n.wideRadii.first(where: { $0 < 1 }) { throw refuse("noiseReduction.wideRadii", r, "at least 1 each") }
    }
}

/// Errors of the pipeline's inputs.
public enum FusionError: Error, Equatable, CustomStringConvertible {
    /// The two frames differ in size.
    case sizeMismatch(flash: String, ambient: String, flashSize: String, ambientSize: String)
    /// A frame is not 3-channel camera RGB.
    case notRGB(name: String, channels: Int)
    /// A frame is too small to register.
    case tooSmall(name: String, width: Int, height: Int)
    /// `FusionOptions.exposureRatioUncertainty` is negative, NaN or infinite.
    case invalidExposureRatioUncertainty(Float)
    /// The flash profile's shading map was measured on a capture of another aspect (`FlashShading.fits`).
    case shadingAspect(capture: SIMD2<Int>, width: Int, height: Int)
    /// A frame's `samples` do not hold `width × height × channelCount` values (a buffer replaced by
    /// one of another size: reading it would go past its end).
    case sampleCount(name: String, count: Int, expected: Int)
    /// A frame holds samples that are not a number in `count` pixels (`LinearFrame.notANumberCount`).
    case notANumber(name: String, count: Int)
    /// An option outside the values it can take.
    case invalidOption(name: String, value: String, expected: String)

    public var description: String {
        switch self {
        case let .sizeMismatch(f, a, fs, as_):
            return "\(a): size \(as_) differs from the flash frame \(f) (\(fs)); the frames must be the same size"
        case let .notRGB(name, c): return "\(name): has \(c) channel(s); camera RGB (3 samples per pixel) is required"
        case let .tooSmall(name, w, h): return "\(name): \(w)x\(h) is too small (at least 32x32 is needed to register)"
        case let .invalidExposureRatioUncertainty(v):
            return "the exposure ratio's relative uncertainty is \(v); it must be a finite number >= 0"
        case let .sampleCount(name, count, expected):
            return "\(name): its samples hold \(count) values, but its size and channels call for \(expected)"
        case let .notANumber(name, count):
            return "\(name): \(count) pixel(s) hold a sample that is not a number (NaN): no measurement"
        case let .invalidOption(name, value, expected):
            return "the option \(name) is \(value); it must be \(expected)"
        case let .shadingAspect(c, w, h):
            return "the flash profile's shading map was measured on a \(c.x)x\(c.y) flat field, these frames are \(w)x\(h): another aspect (rotated?) puts the flash's axis and corners elsewhere; calibrate flat-field with a capture of this orientation"
        }
    }
}

/// Everything `fuse` produces.
public struct FusionResult: Sendable {
    /// The rendered image as 16-bit code values (0…65535 in `Float`), gap-filled, tone-mapped, γ 2.2.
    public var rendered16: PlanarImage
    /// The linear, un-tone-mapped, not gap-filled (noise-reduced) dark-room rendering in
    /// `options.linearSpace`; nil unless `options.produceLinear`.
    public var linear: PlanarImage?
    /// Confidence in [0, 1], one plane: the colour confidence (`ColorimetricConfidence`; equal to
    /// `measurementConfidence` when the flash profile has no colorimetric uncertainty or
    /// `FusionOptions.countColorimetricUncertainty` is off).
    public var confidence: PlanarImage
    /// The measurement confidence of SPEC 2.6 (`Confidence`): how well the capture measured the
    /// flash's light. The gap fill's blend weight and the decision's basis.
    public var measurementConfidence: PlanarImage
    /// The ambient frame rendered as a normal photo (16-bit code values), when asked for.
    public var fallback16: PlanarImage?
    /// The report (SPEC 4.4); input paths are filled in by the caller.
    public var report: FusionReport
    /// The registration found.
    public var registration: RegistrationResult
    /// The ambient exposure subtracted per row (stage 4a).
    public var ambientRatio: AmbientRatioEstimate
    /// `PixelFlag` bits per pixel, flash-frame geometry (`DarkRoomEstimate.flags`): non-zero where the
    /// output measured nothing — the flash frame clipped (at the white level or far below black), the
    /// registered ambient sample clipped, no ambient sample there, or the frames disagree (something
    /// moved between them: stage 4c, `FrameDisagreement`). The confidence is 0 there and the output
    /// is the gap fill.
    public var pixelFlags: [UInt8]
}

/// SPEC section 2 as one plain function: each stage in order, top to bottom.
public enum FusionPipeline {
    /// Refuses a pair `run` cannot process, before any work: frames that are not three-channel, of
    /// different sizes or under 32 pixels on a side, or whose samples do not hold width × height × 3
    /// values; options out of range (`FusionOptions.validate`); a camera profile (when given) or flash
    /// profile that contradicts itself (`CameraProfile.validate`, `FlashProfile.validate`: levels,
    /// noise model, white and matrix, as a profile file's are checked when read); a shading map of
    /// another aspect ratio; an exposure that is not positive and finite. `run` calls it first; a
    /// caller that reports progress calls it before saying anything. (Samples that are not numbers
    /// are found by `run`'s first pass: `FusionError.notANumber`.)
    public static func checkInputs(flash: borrowing RawFrame, ambient: borrowing RawFrame, camera: CameraProfile? = nil,
                                   flashProfile: FlashProfile, options: FusionOptions) throws {
        // Profiles built in code: their levels, noise model, white and matrix checked as a profile
        // file's are when read.
        if let camera { try camera.validate(source: "camera profile '\(camera.name)'") }
        try flashProfile.validate(source: "flash profile '\(flashProfile.name)'")
        for (name, channels) in [(flash.name, flash.image.channelCount), (ambient.name, ambient.image.channelCount)]
        where channels != 3 {
            throw FusionError.notRGB(name: name, channels: channels)
        }
        for (name, count, expected) in [(flash.name, flash.image.samples.count, flash.image.pixelCount * 3),
                                         (ambient.name, ambient.image.samples.count, ambient.image.pixelCount * 3)] where count != expected {
            throw FusionError.sampleCount(name: name, count: count, expected: expected)
        }
        guard flash.image.width == ambient.image.width, flash.image.height == ambient.image.height else {
            throw FusionError.sizeMismatch(flash: flash.name, ambient: ambient.name,
                                           flashSize: "\(flash.image.width)x\(flash.image.height)",
                                           ambientSize: "\(ambient.image.width)x\(ambient.image.height)")
        }
        guard flash.image.width >= 32, flash.image.height >= 32 else {
            throw FusionError.tooSmall(name: flash.name, width: flash.image.width, height: flash.image.height)
        }
        try options.validate()
        if let shading = flashProfile.shading, !shading.fits(width: flash.image.width, height: flash.image.height) {
            throw FusionError.shadingAspect(capture: shading.captureSize!, width: flash.image.width, height: flash.image.height)
        }
        _ = try flash.exposure.validated()
        _ = try ambient.exposure.validated()
    }

    /// Runs normalization, registration, dark-room estimate, rendering, confidence, gap fill and
    /// the summary on a decoded pair. The frames are consumed: when the caller hands over their
    /// only references, normalization works in place instead of holding a second copy of each.
    public static func run(flash: consuming RawFrame, ambient: consuming RawFrame, camera: CameraProfile, flashProfile: FlashProfile,
                           options: FusionOptions = FusionOptions()) throws -> FusionResult {
        try checkInputs(flash: flash, ambient: ambient, camera: camera, flashProfile: flashProfile, options: options)
        var timings = StageTimer()

        let width = flash.image.width, height = flash.image.height
        let flashExposure = flash.exposure, ambientExposure = ambient.exposure

        // 2. Exposure normalization (in place: the raw samples are not used again).
        var F = ExposureNormalization.normalize(raw: flash.image.take(), exposure: flashExposure, camera: camera)
        var A = ExposureNormalization.normalize(raw: ambient.image.take(), exposure: ambientExposure, camera: camera)
        // Samples that are not a number are no measurement; a file holding them is refused when read,
        // and so is a frame given in memory.
        if F.notANumberCount > 0 { throw FusionError.notANumber(name: flash.name, count: F.notANumberCount) }
        if A.notANumberCount > 0 { throw FusionError.notANumber(name: ambient.name, count: A.notANumberCount) }
        timings.lap("normalize")

        // The frames' noise against their models, relative to each other: an ISO tag that is not
        // the capture's (stage 4a counts it where the edges cannot measure the ratio).
        let noiseConsistency = NoiseConsistency.measure(flash: F, ambient: A)
        timings.lap("noiseConsistency")

        // 3. Registration.
        let registration = Registration.register(flash: F, ambient: A, options: options.registration)
        timings.lap("register")

        // 4. Dark-room estimate.
        var D = DarkRoomEstimate(flash: F, ambient: A, registration: registration)
        timings.lap("darkRoom")

        // Block means of the pair (stage 4a's input), and whether the flash frame holds flash light
        // at all or is an ambient exposure scaled.
        let reduced = AmbientRatioEstimate.reducedPair(flash: F, darkRoom: D, registration: registration)
        let flashLight = FlashLightPresence.measure(reduced)
        timings.lap("flashLight")

        // 4a. The ambient exposure the flash frame really holds, per row (EXIF error, flicker).
        // (With EXIF's ratio asked for, the estimate still checks it: `metadata(…checkedAgainst:)`.)
        let measuredRatio = AmbientRatioEstimate.estimate(reduced: reduced, metadataUncertainty: Double(options.exposureRatioUncertainty))
        var ratio = options.estimateAmbientRatio
            ? measuredRatio
            : AmbientRatioEstimate.metadata(height: F.image.height, uncertainty: Double(options.exposureRatioUncertainty),
                                            checkedAgainst: measuredRatio)
        ratio = ratio.counting(noiseConsistency)
        if ratio.source == .illuminationEdges || !ratio.banding.isEmpty || ratio.channelScale != SIMD3(1, 1, 1) {
            D.subtractAmbient(lineRatios: ratio.lineRatios, readout: ratio.readoutAxis, channelScale: SIMD3<Float>(ratio.channelScale),
                              flash: F)
        }
        timings.lap("ambientRatio")

        // 4c. Where the frames disagree (something moved between them): no measurement there, so
        // the confidence is 0 and the gap fill shows the flash frame (SPEC 2.6, 2.7).
        let disagreement = FrameDisagreement.detect(reduced: reduced, ratio: ratio)
        disagreement.mark(&D.flags, width: width, height: height)
        timings.lap("frameDisagreement")
        // Where no shadow edge measured the ratio, the surfaces' colours check the tags (away from
        // what moved: a moved object's cells hold another surface in each frame).
        ratio = ratio.checkedBySurfaceColours(of: reduced, lines: measuredRatio, shading: flashProfile.shading,
                                              excluding: disagreement, metadataUncertainty: Double(options.exposureRatioUncertainty))
        timings.lap("surfaceColourRatio")

        // 5. Color rendering's exposure, from the usable, well-exposed part of D. Where D has no
        // signal at all (no pixel measured flash light: frames swapped, one capture twice, a flash
        // that did not fire), or is the ambient frame scaled (the same, with exposure tags that put
        // D's share of it above 0), from the flash frame, which the gap fill then shows (SPEC 2.7).
        let noFlashLight = flashLight?.indicatesNoFlashLight(
            edgesMeasured: ratio.source == .illuminationEdges || ratio.edgeRatioBeyondRange != nil,
            edgesOverNoise: (ratio.edgeMisfitScale ?? 0) > AmbientRatioEstimate.understatedNoiseMisfitScale,
            tagUncertainty: Double(options.exposureRatioUncertainty)) ?? false
        let unscaled = ColorRendering(flash: flashProfile, primaries: options.primaries, scale: 1)
        let darkRoomExposure = noFlashLight ? nil : ColorRendering.automaticScaleIfSignal(
            cameraToXYZ: unscaled.cameraToXYZ, image: D.difference, flags: D.flags)
        let flashFrameExposure = darkRoomExposure == nil
            ? ColorRendering.automaticScaleIfSignal(cameraToXYZ: unscaled.cameraToXYZ, image: F.image, flags: F.clipped) : nil
        let automatic = darkRoomExposure ?? flashFrameExposure ?? 1
        let exposureSource: FusionReport.ExposureSource = darkRoomExposure != nil ? .darkRoom
            : flashFrameExposure != nil ? .flashFrame : .none
        let scale = options.outputScale ?? automatic
        let rendering = unscaled.withScale(scale)
        // The confidence measures σ in ΔE00 chroma at each pixel's colour, and CIELAB's non-linearity
        // makes that depend on the exposure: it is measured at the automatic (scene-referred) one,
        // so that `outputScale`, a choice of how bright to render, does not change what the
        // measurement is worth.
        let measurementRendering = unscaled.withScale(automatic)

        // 4b + 6. The flash-guided models of D (three window sizes), then in one pass the noise-reduced D
        // and the confidence.
        // Buffers nothing reads any more are written over instead of fresh ones (whose pages the
        // kernel faults in and zeroes: at 12 MP, 48 MB a plane): the ambient frame's samples (not
        // read after the dark-room estimate, unless the fallback photo is rendered from them) hold
        // the widest model while it is computed (it is kept halved), then the next (kept whole: by
        // default the 13×13 one, so the model itself takes fresh pages); the models' working planes,
        // the confidence; the model, once evaluated, the linear output or the colour
        // confidence.
        var scratch: [Float] = []
        var storage = options.renderFallback ? [] : A.image.take().samples
        let wide = options.noiseReduction.wideModels(estimate: D, flash: F, reusing: &storage, scratch: &scratch)
        timings.lap("noiseReductionWide")
        let model = options.noiseReduction.model(estimate: D, flash: F, reusing: moved(&storage), scratch: &scratch)
        timings.lap("noiseReduction")
        // The ratio's uncertainty common to the channels, and each channel's signed deviation where
        // they read it apart (the ambient light's colour changed, or not every edge is its).
        let deviation = ratio.ambientColourDeviation.map { SIMD3<Float>($0) } ?? .zero
        var confidence = Confidence.filterAndMap(estimate: &D, model: model, wide: wide, flash: F, rendering: measurementRendering,
                                                 exposureRatioUncertainty: Float(ratio.relativeUncertainty),
                                                 ambientColourDeviation: deviation,
                                                 reusing: consume scratch).confidence
        // No pixel of D has positive luminance: no flash light was measured anywhere, whatever the
        // noise says about the differences (0 = no information, SPEC 2.6).
        if darkRoomExposure == nil { confidence.samples.withUnsafeMutableBufferPointer { $0.update(repeating: 0) } }
        var spare = (consume model).planes
        timings.lap("confidence")
        // 6b. The flash's colour shading across the frame (FlashShading), on D and on the flash frame
        // the gap fill blends toward (F is not used uncorrected after this). It comes after the
        // exposure and the confidence, which are computed on the uncorrected D: the colour gains are
        // within a few percent of 1, but with `flattenFlashFalloff` the corners brighten after the
        // exposure was chosen.
        if let shading = flashProfile.shading.map({ FlashShadingCorrection($0, flattenLevel: options.flattenFlashFalloff) }) {
            shading.apply(to: &D.difference); shading.apply(to: &F.image); timings.lap("flashShading")
        }
        let linear = options.produceLinear
            ? rendering.linearOutput(D.difference, space: options.linearSpace,
                                     reusing: spare.capacity >= D.difference.samples.count ? moved(&spare) : []) : nil
        if linear != nil { timings.lap("linear") }
        // 6c. The colour confidence: the matrix's own error at each pixel's colour counted too.
        let lookup = options.countColorimetricUncertainty ? flashProfile.colorimetricLookup : nil
        let colorConfidence = lookup.map {
            ColorimetricConfidence.apply($0, darkRoom: D.difference, measurement: confidence, reusing: moved(&spare))
        } ?? confidence
        if lookup != nil { timings.lap("colorConfidence") }

        // 7. Gap fill toward the flash frame, the global tone curve and γ 2.2, in one pass.
        let flashScale = scale * GapFill.matchingScale(darkRoomCamera: D.difference, flashCamera: F.image,
                                                       confidence: confidence, cameraToXYZ: rendering.cameraToXYZ)
        let curve = ToneCurve()
        // (D's samples are not used after this: the rendering takes their buffer.)
        let rendered16 = GapFill.render16(darkRoom: D.difference.take(), flashFrame: F.image, confidence: confidence,
                                          darkRoomMatrix: rendering.matrix(to: .rgb),
                                          flashMatrix: rendering.withScale(flashScale).matrix(to: .rgb), curve: curve)
        timings.lap("renderAndEncode")

        // 8. Summary, decision, fallback.
        let mean = ConfidenceSummary.centerWeightedMean(confidence)
        let colorMean = lookup == nil ? mean : ConfidenceSummary.centerWeightedMean(colorConfidence)
        let decision = ConfidenceSummary.decision(meanConfidence: mean, threshold: options.threshold)
        var fallback16: PlanarImage? = nil
        if options.renderFallback {
            fallback16 = curve.encode16(AmbientPhotoRendering.render(A, flash: flashProfile, primaries: options.primaries).image)
            timings.lap("fallback")
        }
        let either = countBytes(D.flags, withAnyBitOf: PixelFlag.flashClipped | PixelFlag.ambientClipped)
        var report = FusionReport(
            version: ConstantColorVersion.current,
            width: width, height: height,
            centerWeightedMeanConfidence: mean, threshold: options.threshold, decision: decision,
            registration: .init(registration, width: width, height: height),
            frameDisagreement: .init(disagreement, width: width, height: height),
            exposure: .init(flash: flashExposure, ambient: ambientExposure, ambientRatio: ratio),
            clippedFraction: .init(flash: F.clippedFraction, ambient: A.clippedFraction,
                                   either: Double(either) / Double(max(1, D.flags.count)),
                                   flashBelowBlack: F.belowFloorFraction, ambientBelowBlack: A.belowFloorFraction,
                                   flashSaturationBelowWhite: F.saturationPlateaus.isEmpty ? nil : F.saturationPlateaus,
                                   ambientSaturationBelowWhite: A.saturationPlateaus.isEmpty ? nil : A.saturationPlateaus),
            rendering: .init(primaries: options.primaries.rawValue, linearSpace: options.linearSpace.rawValue,
                             outputScale: scale, automaticExposure: options.outputScale == nil,
                             exposureSource: exposureSource, measurementScale: automatic,
                             toneCurveKnee: Double(curve.knee), gamma: Double(curve.gamma),
                             flashFrameScale: flashScale,
                             flashShading: flashProfile.shading == nil ? "none" : options.flattenFlashFalloff ? "colourAndLevel" : "colour"),
            timingsSeconds: timings.seconds, inputs: [:])
        report.colorConfidence = .init(countsColorimetricUncertainty: lookup != nil, centerWeightedMean: colorMean)
        report.flashLight = flashLight.map {
            .init(structure: $0.structure, neighbourStructure: $0.neighbourStructure,
                  ambientScale: [$0.ambientScale.x, $0.ambientScale.y, $0.ambientScale.z], brightExcess: $0.brightExcess, noFlashLight: noFlashLight)
        }
        var result = FusionResult(rendered16: rendered16, linear: linear, confidence: colorConfidence,
                                  measurementConfidence: confidence,
                                  fallback16: fallback16, report: report, registration: registration,
                                  ambientRatio: ratio, pixelFlags: D.flags)
        // The warnings, the flash profile named by its name (`fuse` says its own, naming the files).
        let cameraLabel = "the camera profile", flashLabel = "the flash profile '\(flashProfile.name)'"
        result.report.warnings = ProfileWarnings.lines(camera: camera, cameraPath: cameraLabel, flash: flashProfile, flashPath: flashLabel,
                                                       countColorimetricUncertainty: options.countColorimetricUncertainty)
            + FusionWarnings.lines(result, cameraPath: cameraLabel, blackLevel: camera.blackLevel, whiteLevel: camera.whiteLevel)
        return result
    }
}

/// Wall-clock time per named stage.
public struct StageTimer: Sendable {
    private var last = DispatchTime.now().uptimeNanoseconds
    /// Seconds per stage, in the order measured.
    public private(set) var seconds: [String: Double] = [:]
    /// Starts timing now.
    public init() {}
    /// Records the time since the previous lap under `name`.
    public mutating func lap(_ name: String) {
        let now = DispatchTime.now().uptimeNanoseconds
        seconds[name, default: 0] += Double(now - last) / 1e9
        last = now
    }
}
