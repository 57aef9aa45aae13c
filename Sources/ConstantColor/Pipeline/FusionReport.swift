import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The report of one `fuse` run (SPEC 4.4), written as JSON.
public struct FusionReport: Sendable, Codable {
    /// Tool version.
    public var version: String
    /// Frame size.
    public var width: Int, height: Int
    /// Center-weighted mean (SPEC 2.8) of the measurement confidence (`FusionResult.measurementConfidence`):
    /// how well the capture measured the flash's light. The decision compares it with the threshold.
    public var centerWeightedMeanConfidence: Double
    /// The threshold it was compared with.
    public var threshold: Double
    /// The decision.
    public var decision: FusionDecision
    /// The colour confidence, the map `fuse --confidence` writes (`ColorimetricConfidence`).
    public var colorConfidence = ColorConfidenceReport(countsColorimetricUncertainty: false, centerWeightedMean: 0)
    /// Whether the flash frame holds flash light at all (`FlashLightPresence`; absent: not measured,
    /// too little ambient signal to compare with).
    public var flashLight: FlashLightReport? = nil
    /// What registration found.
    public var registration: RegistrationReport
    /// Where the frames disagree because something moved between them (`FrameDisagreement`; absent
    /// only in reports written before it: a pair with nothing found has `regionCount` 0).
    public var frameDisagreement: FrameDisagreementReport? = nil
    /// Both frames' exposures and their ratio.
    public var exposure: ExposureReport
    /// Fractions of clipped pixels.
    public var clippedFraction: ClippedFractionReport
    /// How the output was rendered.
    public var rendering: RenderingReport
    /// Seconds per stage.
    public var timingsSeconds: [String: Double]
    /// Input and profile paths (`flash`, `ambient`, `camera`, `flashProfile`) and outputs.
    public var inputs: [String: String]
    /// The warnings and notes about the run, one line each ("warning: …", "note: …"; what `fuse` says
    /// on standard error): what may make the colours or the confidence wrong although the run
    /// succeeded (profiles of another camera, exposure tags the images contradict, a noise model that
    /// understates the frames' noise, …). Empty when there is none. `FusionPipeline.run` fills it,
    /// naming the flash profile by its name; `fuse` writes the lines it said, which name the files and
    /// add the frames' own (EXIF, orientation, focal length). The remedies they name are the command
    /// line's options: `--flash-exposure`/`--ambient-exposure` are a `RawFrame`'s `exposure`,
    /// `--exposure-ratio` is `FusionOptions.estimateAmbientRatio`.
    public var warnings: [String] = []

    /// What `rendering.exposureSource` names.
    public enum ExposureSource: String, Sendable, Codable {
        /// The flash-only estimate `D` (the normal case).
        case darkRoom
        /// The flash frame: no pixel of `D` has positive luminance, or the flash frame is the ambient
        /// frame scaled (`FlashLightReport.noFlashLight`), so no pixel measured the flash's light
        /// (frames swapped, one capture given twice, a flash that did not fire); the output is then
        /// the gap fill's rendering of the flash frame.
        case flashFrame
        /// Neither frame has a usable pixel of positive luminance (e.g. every sample at or below the
        /// camera profile's black level): exposure 1.
        case none
    }

    /// The colour confidence in the report.
    public struct ColorConfidenceReport: Sendable, Codable {
        /// Whether it counts the flash profile's colorimetric uncertainty (false: the profile has no
        /// map, or `FusionOptions.countColorimetricUncertainty` is off; it then equals the measurement
        /// confidence).
        public var countsColorimetricUncertainty: Bool
        /// Its center-weighted mean (SPEC 2.8 weights).
        public var centerWeightedMean: Double
        /// Creates the summary.
        public init(countsColorimetricUncertainty: Bool, centerWeightedMean: Double) {
            self.countsColorimetricUncertainty = countsColorimetricUncertainty; self.centerWeightedMean = centerWeightedMean
        }
    }

    /// `FlashLightPresence` in the report.
    public struct FlashLightReport: Sendable, Codable {
        /// The flash frame's residual about the line-by-line scaled ambient frame, over its noise
        /// (median z² over the χ²(1) median: 1 where the flash frame is an ambient exposure).
        public var structure: Double
        /// The same median z² over the neighbouring blocks' differences' (`FlashLightPresence.neighbourStructure`:
        /// about 1 where the residuals are white noise, whatever the noise model's scale).
        public var neighbourStructure: Double
        /// Per channel (red, green, blue), the median line's scale of the ambient frame that best
        /// explains the flash frame, in units of the exposure tags' ratio (1: as tagged).
        public var ambientScale: [Double]
        /// The share of blocks more than 4 standard deviations brighter in the flash frame than the
        /// scaled ambient frame, less the share as far darker (`FlashLightPresence.brightExcess`).
        public var brightExcess: Double
        /// Whether no flash light was measured (`FlashLightPresence.indicatesNoFlashLight`): the
        /// confidence is then 0 and the output the flash frame's rendering.
        public var noFlashLight: Bool
        /// Whether the flash frame holds less of the ambient light than its exposure tags predict,
        /// beyond the searched range (`AmbientRatioEstimate.searchedRelativeRange`), with flash light
        /// measured: flash light can only add, so the frames' tags are far off (swapped, or of other captures).
        public var holdsLessAmbientThanTags: Bool {
            !noFlashLight && ambientScale[1] < 1 - AmbientRatioEstimate.searchedRelativeRange
        }
        /// Creates the summary.
        public init(structure: Double, neighbourStructure: Double, ambientScale: [Double], brightExcess: Double, noFlashLight: Bool) {
            self.structure = structure; self.neighbourStructure = neighbourStructure
            self.ambientScale = ambientScale; self.brightExcess = brightExcess
            self.noFlashLight = noFlashLight
        }
    }

    /// `FrameDisagreement` in the report.
    public struct FrameDisagreementReport: Sendable, Codable, Equatable {
        /// Regions where the frames disagree (the ambient frame's outline of something that moved).
        public var regionCount: Int
        /// The share of the frame's pixels set `PixelFlag.framesDisagree` (confidence 0, gap fill).
        public var pixelFraction: Double
        /// Per region, largest first: full-resolution pixels (x, y) from the outline's place in the
        /// ambient frame to its place in the flash frame.
        public var displacementsPixels: [[Double]]
        /// Per region, the windows of the reduced pair on the outline.
        public var outlineCells: [Int]
        /// The summary of `d` on a `width × height` frame.
        public init(_ d: FrameDisagreement, width: Int, height: Int) {
            regionCount = d.regions.count
            pixelFraction = Double(d.flaggedPixelCount) / Double(max(1, width * height))
            displacementsPixels = d.regions.map { [$0.displacement.x, $0.displacement.y] }
            outlineCells = d.regions.map(\.outlineCells)
        }
    }

    /// Registration in the report.
    public struct RegistrationReport: Sendable, Codable {
        /// Chosen model.
        public var model: MotionModel
        /// 3×3 matrix mapping flash-frame pixel coordinates to ambient-frame coordinates.
        public var ambientFromFlash: [[Double]]
        /// Displacement of the frame center, pixels.
        public var translationPixels: [Double]
        /// Rotation, degrees (from the matrix's linear part).
        public var rotationDegrees: Double
        /// Uniform scale (from the matrix's linear part).
        public var scale: Double
        /// The chosen model's own parameters (SPEC 4.4: model, parameters, residual), by name: the
        /// frame centre's displacement `dxPixels`, `dyPixels` (every model), `rotationDegrees`
        /// (rigid, similarity) and `scale` (similarity), as the fields above give them; for a
        /// homography the eight entries `h11` … `h32` of `ambientFromFlash` scaled to `h33` = 1.
        public var parameters: [String: Double]
        /// Robust relative residual of the chosen model.
        public var residual: Double
        /// Residual of every fitted model.
        public var residualByModel: [String: Double]
        /// Why the frames were taken as aligned, as captured, instead of registered
        /// (`NotRegisteredReason`); absent where the fit was kept.
        public var notRegistered: NotRegisteredReason?
        /// Correlation of the flash frame's features with the registered ambient frame's (about 0
        /// for independent noise, 0.5–0.99 for one scene under the two lights); absent where nothing
        /// was fitted.
        public var featureCorrelation: Double?

        /// Summarizes a registration result.
        public init(_ r: RegistrationResult, width: Int, height: Int) {
            model = r.model
            ambientFromFlash = r.ambientFromFlash.rows
            let d = r.displacement(atX: Double(width) / 2, y: Double(height) / 2)
            translationPixels = [d.dx, d.dy]
            let m = r.ambientFromFlash
            rotationDegrees = atan2(m[1, 0] - m[0, 1], m[0, 0] + m[1, 1]) * 180 / .pi
            scale = (abs(m[0, 0] * m[1, 1] - m[0, 1] * m[1, 0])).squareRoot()
            switch r.model {
            case .translation: parameters = ["dxPixels": d.dx, "dyPixels": d.dy]
            case .rigid: parameters = ["dxPixels": d.dx, "dyPixels": d.dy, "rotationDegrees": rotationDegrees]
            case .similarity: parameters = ["dxPixels": d.dx, "dyPixels": d.dy, "rotationDegrees": rotationDegrees, "scale": scale]
            case .homography:
                let rows = r.ambientFromFlash.rows, h33 = rows[2][2]
                parameters = [:]
                for i in 0..<3 { for j in 0..<3 where i < 2 || j < 2 { parameters["h\(i + 1)\(j + 1)"] = rows[i][j] / h33 } }
            }
            residual = r.residual
            residualByModel = Dictionary(uniqueKeysWithValues: r.residualByModel.map { ($0.key.rawValue, $0.value) })
            notRegistered = r.notRegistered
            featureCorrelation = r.featureCorrelation
        }
    }

    /// Exposure in the report.
    public struct ExposureReport: Sendable, Codable {
        /// Flash frame exposure.
        public var flash: ExposureSettings
        /// Ambient frame exposure.
        public var ambient: ExposureSettings
        /// `t·ISO/100/N²` of each frame.
        public var flashRadiometricScale: Double, ambientRadiometricScale: Double
        /// Ambient-to-flash exposure ratio (ambient scale / flash scale), from the metadata.
        public var ambientToFlashRatio: Double

        /// The ratio the pipeline subtracted with: `ambientToFlashRatio / r̄`, r̄ the mean of
        /// `ambientRatio.lineRatios` (equal to the metadata's when nothing was estimated).
        public var estimatedAmbientToFlashRatio: Double?
        /// How it was found (stage 4a).
        public var ambientRatio: AmbientRatioReport?

        /// Builds the exposure summary.
        public init(flash: ExposureSettings, ambient: ExposureSettings, ambientRatio: AmbientRatioEstimate? = nil) {
            self.flash = flash; self.ambient = ambient
            flashRadiometricScale = flash.radiometricScale
            ambientRadiometricScale = ambient.radiometricScale
            ambientToFlashRatio = ambient.radiometricScale / flash.radiometricScale
            if let r = ambientRatio {
                estimatedAmbientToFlashRatio = ambientToFlashRatio / r.meanRatio
                self.ambientRatio = AmbientRatioReport(r)
            }
        }
    }

    /// Stage 4a in the report: the flash frame's ambient exposure relative to EXIF.
    public struct AmbientRatioReport: Sendable, Codable {
        /// `illuminationEdges` (weighted with EXIF by precision) or `metadata`.
        public var source: AmbientRatioEstimate.Source
        /// r₀ and the mean of r(y) (1 = EXIF right).
        public var baseRatio: Double, meanRatio: Double
        /// Relative standard uncertainty used by the confidence.
        public var relativeUncertainty: Double
        /// Illumination-edge gradients measured.
        public var edgeSampleCount: Int
        /// r₀ as the edges alone measure it and its relative standard uncertainty (absent without edges).
        public var edgeRatio: Double?, edgeRelativeUncertainty: Double?
        /// The edges' weight in r₀ against EXIF's (inverse-variance; 0 without edges).
        public var edgeWeight: Double
        /// The edge profiles' median misfit over the noise model's (about 1 when the camera profile's
        /// noise model fits the frames; `AmbientRatioEstimate.edgeMisfitScale`). Absent without edges.
        public var edgeMisfitScale: Double?
        /// Flicker banding components removed, along `readoutAxis`.
        public var banding: [RowBanding]
        /// The lines the banding and the edges' bands run along: `rows`, or `columns` where the
        /// sensor read the stored frame out column by column (`AmbientRatioEstimate.readoutAxis`).
        public var readoutAxis: ReadoutAxis
        /// How much blurrier the registered ambient frame is than the flash frame, [x, y] variances in
        /// pixels² (hand shake, resampling), as matched before the edge regression
        /// (`AmbientRatioEstimate.ambientBlurVariance`).
        public var ambientBlurVariancePixels2: [Double]?
        /// r₀ where the illumination edges put it beyond the searched range
        /// (`AmbientRatioEstimate.edgeRatioBeyondRange`: EXIF far off), and the profiles beyond it.
        public var edgeRatioBeyondRange: Double?, edgeSampleCountBeyondRange: Int
        /// The profiles beyond the range left out of `edgeRatioBeyondRange` as borders between
        /// materials (`AmbientRatioEstimate.edgeSampleCountBeyondRangeAtMaterialBorders`; absent in
        /// reports written before they were).
        public var edgeSampleCountBeyondRangeAtMaterialBorders: Int?
        /// The factor on each ambient channel's ratio [r, g, b] (1, 1, 1 but where the frames'
        /// channels are on different scales: `AmbientRatioEstimate.channelScale`), and the one the
        /// edges measured, applied or not (absent: too few edges).
        public var channelScale: [Double], measuredChannelScale: [Double]?
        /// The channel scale from the edges' coarser profiles, and its relative standard errors
        /// (`AmbientRatioEstimate.coarseChannelScale`; absent: too few edges).
        public var coarseChannelScale: [Double]?, coarseChannelScaleError: [Double]?
        /// The share of the coarse profiles whose channels agree (`AmbientRatioEstimate.coarseChannelAgreement`).
        public var coarseChannelAgreement: Double?, coarseChannelAgreementScaled: Double?
        /// The ambient frame's pixel noise over its model, relative to the flash frame's
        /// (`NoiseConsistency.relativeScale`: about 1 when both ISO tags describe the frames; absent:
        /// not measured).
        public var ambientNoiseRelativeToFlash: Double?
        /// r₀ as the edges measure it in each of four bands of rows, top to bottom (of columns, left
        /// to right, when `readoutAxis` is `columns`), banding removed (null: too few edges there;
        /// `AmbientRatioEstimate.edgeRatioByRowBand`). Absent without edges.
        public var edgeRatioByRowBand: [Double?]?
        /// How many distinct lines of stage 4a's reduced pair each band's edges lie on (null where
        /// the band has no ratio; `AmbientRatioEstimate.edgeLineCountByRowBand`): a band's difference
        /// is weighed as Student's t with that many less one degrees of freedom. Absent without edges.
        public var edgeLineCountByRowBand: [Int?]?
        /// Where the bands disagree beyond their errors, the relative standard uncertainty counted for
        /// it in `relativeUncertainty` (`AmbientRatioEstimate.rowBandExcessVariance`); absent where they agree.
        public var rowBandRelativeUncertainty: Double?
        /// r₀ as the edges measure it in each channel alone, red, green, blue (null: too few edges
        /// measured it; `AmbientRatioEstimate.edgeRatioByChannel`). Absent without edges.
        public var edgeRatioByChannel: [Double?]?
        /// Where the channels disagree beyond their errors, the relative standard uncertainty counted
        /// for it in `relativeUncertainty` (`AmbientRatioEstimate.edgeChannelExcessVariance`); absent where they agree.
        public var edgeChannelRelativeUncertainty: Double?
        /// There, each channel's signed relative deviation (red, green, blue) from the channels' mean
        /// beyond 3 %, which the confidence counts by its direction as well
        /// (`AmbientRatioEstimate.edgeChannelDeviation`); absent where there is none.
        public var edgeChannelRelativeDeviation: [Double]?
        /// The share of the profiles that read as illumination edges (`IlluminationEdgeRatio.ThreeChannelProfile.readsAsIlluminationEdge`) whose three channels
        /// agree on the ratio (`AmbientRatioEstimate.edgeChannelAgreement`; absent: too few).
        public var edgeChannelAgreement: Double?
        /// Where that share says the ambient light changed colour between the frames, per channel (red,
        /// green, blue) the signed relative error of the subtracted ratio that the confidence counts by
        /// its direction beside `relativeUncertainty` (`AmbientRatioEstimate.ambientColourChangeError`); absent otherwise.
        public var ambientColourChangeRelativeError: [Double]?
        /// r₀ as the edge profiles along the lines of `readoutAxis` (within one line) and across them
        /// (on the same lines) measure it, the profiles each rests on, and how far apart in their
        /// standard errors (absent: not measured); whether
        /// those across were left out for it (`AmbientRatioEstimate.edgeAcrossLinesRefused`: a banding
        /// the model does not describe leaves stripes that read as illumination edges); and the
        /// relative standard uncertainty counted where r₀ rests on profiles across the lines alone
        /// under a fitted banding (absent otherwise).
        public var edgeRatioAlongLines: Double?, edgeRatioAcrossLines: Double?, edgeLineOrientationSeparation: Double?
        /// The profiles along and across the lines that those r₀ rest on.
        public var edgeSampleCountAlongLines: Int, edgeSampleCountAcrossLines: Int
        /// Whether the profiles across the lines were left out (see above).
        public var edgeAcrossLinesRefused: Bool
        /// The relative standard uncertainty counted where r₀ rests on profiles across the lines alone
        /// under a fitted banding (absent otherwise).
        public var uncheckedAcrossLinesRelativeUncertainty: Double?
        /// With `--exposure-ratio metadata`: the edges' r₀ where it contradicts EXIF, and the flicker
        /// banding found and left in (`AmbientRatioEstimate.metadataContradiction`,
        /// `uncompensatedBanding`); absent otherwise.
        public var metadataContradiction: Double?, uncompensatedBanding: [RowBanding]?
        /// Where no shadow edge measured the ratio: r₀ as the surfaces' colours read it (× EXIF's),
        /// its relative standard error and the surfaces it rests on (`SurfaceColourRatio`; absent
        /// where edges measured it or too few surfaces qualify), and that r₀ again where it
        /// contradicts the ratio subtracted, whose `relativeUncertainty` then counts the difference
        /// (`AmbientRatioEstimate.surfaceColourContradiction`; absent otherwise).
        public var surfaceColourRatio: Double?, surfaceColourRelativeUncertainty: Double?, surfaceColourGroupCount: Int?
        /// (See `surfaceColourRatio`.)
        public var surfaceColourContradiction: Double?

        /// Summarizes an estimate.
        public init(_ r: AmbientRatioEstimate) {
            source = r.source; baseRatio = r.baseRatio; meanRatio = r.meanRatio
            relativeUncertainty = r.relativeUncertainty; edgeSampleCount = r.edgeSampleCount; banding = r.banding
            readoutAxis = r.readoutAxis
            edgeRatio = r.edgeRatio; edgeRelativeUncertainty = r.edgeRelativeUncertainty; edgeWeight = r.edgeWeight
            edgeMisfitScale = r.edgeMisfitScale
            ambientBlurVariancePixels2 = r.ambientBlurVariance.map { [$0.x, $0.y] }
            edgeRatioBeyondRange = r.edgeRatioBeyondRange; edgeSampleCountBeyondRange = r.edgeSampleCountBeyondRange
            edgeSampleCountBeyondRangeAtMaterialBorders = r.edgeSampleCountBeyondRangeAtMaterialBorders
            channelScale = [r.channelScale.x, r.channelScale.y, r.channelScale.z]
            measuredChannelScale = r.measuredChannelScale.map { [$0.x, $0.y, $0.z] }
            coarseChannelScale = r.coarseChannelScale.map { [$0.x, $0.y, $0.z] }
            coarseChannelScaleError = r.coarseChannelScaleError.map { [$0.x, $0.y, $0.z] }
            coarseChannelAgreement = r.coarseChannelAgreement; coarseChannelAgreementScaled = r.coarseChannelAgreementScaled
            ambientNoiseRelativeToFlash = r.noiseConsistency?.relativeScale
            edgeRatioByRowBand = r.edgeRatioByRowBand.isEmpty ? nil : r.edgeRatioByRowBand
            edgeLineCountByRowBand = r.edgeLineCountByRowBand.isEmpty ? nil : r.edgeLineCountByRowBand
            rowBandRelativeUncertainty = r.rowBandExcessVariance.map { $0.squareRoot() }
            edgeRatioByChannel = r.edgeRatioByChannel.isEmpty ? nil : r.edgeRatioByChannel
            edgeChannelRelativeUncertainty = r.edgeChannelExcessVariance.map { $0.squareRoot() }
            edgeChannelRelativeDeviation = r.edgeChannelDeviation.map { [$0.x, $0.y, $0.z] }
            edgeChannelAgreement = r.edgeChannelAgreement
            ambientColourChangeRelativeError = r.ambientColourChangeError.map { [$0.x, $0.y, $0.z] }
            edgeRatioAlongLines = r.edgeRatioAlongLines; edgeRatioAcrossLines = r.edgeRatioAcrossLines
            edgeLineOrientationSeparation = r.edgeLineOrientationSeparation; edgeAcrossLinesRefused = r.edgeAcrossLinesRefused
            edgeSampleCountAlongLines = r.edgeSampleCountAlongLines; edgeSampleCountAcrossLines = r.edgeSampleCountAcrossLines
            uncheckedAcrossLinesRelativeUncertainty = r.uncheckedAcrossLinesVariance.map { $0.squareRoot() }
            surfaceColourRatio = r.surfaceColourRatio.map { $0.ratio * r.baseRatio }
            surfaceColourRelativeUncertainty = r.surfaceColourRatio.map { $0.standardError / $0.ratio }
            surfaceColourGroupCount = r.surfaceColourRatio?.groupCount
            surfaceColourContradiction = r.surfaceColourContradiction
            metadataContradiction = r.metadataContradiction
            uncompensatedBanding = r.uncompensatedBanding.isEmpty ? nil : r.uncompensatedBanding
        }
    }

    /// Clipping in the report.
    public struct ClippedFractionReport: Sendable, Codable {
        /// Fraction of flash pixels clipped.
        public var flash: Double
        /// Fraction of ambient pixels clipped.
        public var ambient: Double
        /// Fraction of output pixels clipped in either (after registration).
        public var either: Double
        /// Of `flash` and `ambient`, the fractions far below the black level (the rest is at the white level).
        public var flashBelowBlack: Double, ambientBelowBlack: Double
        /// Channels of each frame that saturate below the camera profile's clipping level
        /// (`SaturationPlateau`; counted in `flash` and `ambient`); nil where none does.
        public var flashSaturationBelowWhite: [SaturationPlateau]? = nil, ambientSaturationBelowWhite: [SaturationPlateau]? = nil
    }

    /// Rendering parameters in the report.
    public struct RenderingReport: Sendable, Codable {
        /// `p3` or `srgb`.
        public var primaries: String
        /// `rgb` or `xyz`.
        public var linearSpace: String
        /// Global exposure applied (linear output per normalized unit).
        public var outputScale: Double
        /// Whether it was chosen automatically.
        public var automaticExposure: Bool
        /// What the automatic exposure was taken from (also when `outputScale` was given).
        public var exposureSource: ExposureSource
        /// The exposure the confidence is measured at: the automatic one, whatever `outputScale`.
        public var measurementScale: Double
        /// Tone curve knee.
        public var toneCurveKnee: Double
        /// Encoding gamma.
        public var gamma: Double
        /// Exposure of the flash-frame rendering used for gap fill.
        public var flashFrameScale: Double
        /// The flash profile's shading map as applied: `none` (no map), `colour`, or `colourAndLevel`
        /// (fall-off flattened too).
        public var flashShading: String = "none"
    }
}

extension FusionReport {
    /// Decodes a report as `fuse --report` writes it (`jsonDecoder()`); `colorConfidence`,
    /// `frameDisagreement` and `warnings` may be absent (their defaults), every other key of this
    /// version is required.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        version = try c.decode(String.self, forKey: .version)
        width = try c.decode(Int.self, forKey: .width)
        height = try c.decode(Int.self, forKey: .height)
        centerWeightedMeanConfidence = try c.decode(Double.self, forKey: .centerWeightedMeanConfidence)
        threshold = try c.decode(Double.self, forKey: .threshold)
        decision = try c.decode(FusionDecision.self, forKey: .decision)
        colorConfidence = try c.decodeIfPresent(ColorConfidenceReport.self, forKey: .colorConfidence)
            ?? ColorConfidenceReport(countsColorimetricUncertainty: false, centerWeightedMean: centerWeightedMeanConfidence)
        flashLight = try c.decodeIfPresent(FlashLightReport.self, forKey: .flashLight)
        frameDisagreement = try c.decodeIfPresent(FrameDisagreementReport.self, forKey: .frameDisagreement)
        registration = try c.decode(RegistrationReport.self, forKey: .registration)
        exposure = try c.decode(ExposureReport.self, forKey: .exposure)
        clippedFraction = try c.decode(ClippedFractionReport.self, forKey: .clippedFraction)
        rendering = try c.decode(RenderingReport.self, forKey: .rendering)
        timingsSeconds = try c.decode([String: Double].self, forKey: .timingsSeconds)
        inputs = try c.decode([String: String].self, forKey: .inputs)
        warnings = try c.decodeIfPresent([String].self, forKey: .warnings) ?? []
    }

    /// The encoder `fuse --report` writes with: sorted keys, indented, and a quantity that could not be
    /// measured (an infinite registration residual of featureless frames) as the string "inf"
    /// ("-inf", "nan"), which JSON has no number for (a default encoder throws on it).
    public static func jsonEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return encoder
    }

    /// The decoder that reads what `jsonEncoder()` writes back ("inf" and the like as numbers).
    public static func jsonDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return decoder
    }
}
