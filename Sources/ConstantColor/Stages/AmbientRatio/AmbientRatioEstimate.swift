import Foundation

/// Stage 4a: how much ambient light the flash frame really holds, row by row, measured from the
/// image data instead of trusted from EXIF (issue 7: metadata that is off, flicker through a
/// rolling shutter).
///
/// Model, in normalized camera RGB (SPEC 2.2): `F = D + r(y)·A`, with `A` the registered ambient
/// frame, `D` the flash-only image and `r(y)` the ambient exposure received by row `y` of the flash
/// frame relative to the ambient frame's — 1 when both EXIF exposures are right and the light is
/// steady. `r(y) = r₀ + Δ(y)`:
/// - `Δ(y)`, flicker banding: under 100/120 Hz or PWM light each row of a rolling-shutter frame
///   integrates a different part of the light's cycle, a sinusoid in the row index (Poplin 2006,
///   "An automatic flicker detection method for embedded camera systems"). Each pixel's change of
///   `F − r̄·A` down the frame, over A, is regressed on the flash fall-off's share (proportional to `D/A`)
///   plus up to three sinusoids of free frequency, each kept only when an F-test shows it
///   (`RowBandingFit`).
/// - `r₀`, the exposure ratio: across an edge of the ambient light alone (a shadow's penumbra) the
///   surface does not change and the flash changes only smoothly, so `F − Δ·A` follows `r₀·A` plus a
///   line along a short profile, in every channel alike; reflectance edges give each channel its own
///   `D/A` (`IlluminationEdgeRatio`).
/// Both run on a block-averaged copy of the frames (`ReducedFramePair`, about 200 rows; the edges on
/// it halved once more) so that noise shrinks and hand-shake blur to about a pixel; the ambient
/// frame's remaining extra blur is measured (`RelativeBlur`) and given to the flash frame before the
/// edge regression. EXIF (`r₀ = 1 ± metadataUncertainty`) and the edges (`edgeRatio ±
/// edgeRelativeUncertainty`) are two independent measurements of `r₀`: where they agree it is their
/// inverse-variance weighted mean, more precise than either (`edgeWeight` the edges' share: near 1
/// where the ambient light is bright enough for its edges to be sharp in the flash frame, small in
/// dim light, where EXIF knows more), else the more precise of the two (`combined`). Where no
/// illumination edge is found, `r₀` stays at the metadata's 1 and its uncertainty is
/// `metadataUncertainty` — said in `source`, never silently.
public struct AmbientRatioEstimate: Sendable, Equatable {
    /// Where `baseRatio` comes from.
    public enum Source: String, Sendable, Codable {
        /// The image data (illumination edges), weighted with EXIF by their precisions (`edgeWeight`).
        case illuminationEdges
        /// EXIF (estimation off, or no illumination edge to measure).
        case metadata
    }

    /// `r₀`: the flash frame's ambient exposure over the ambient frame's, relative to EXIF (1 = EXIF right).
    public var baseRatio: Double
    /// Where `baseRatio` comes from.
    public var source: Source
    /// Flicker banding components found (empty: none), along `readoutAxis` (with `.columns`, a
    /// component's `cyclesPerFrameHeight` counts cycles across the frame's width).
    public var banding: [RowBanding]
    /// `r` for each line of the full-resolution frame along `readoutAxis`: `r(y)` for each row, or
    /// `r(x)` for each column.
    public var lineRatios: [Float]
    /// Relative standard uncertainty of `r(y)` (exposure ratio and banding together).
    public var relativeUncertainty: Double
    /// Number of illumination-edge profiles measured (0: none).
    public var edgeSampleCount: Int
    /// `r₀` as the illumination edges alone measure it, and its relative standard uncertainty; nil
    /// when no edge was measured.
    public var edgeRatio: Double? = nil, edgeRelativeUncertainty: Double? = nil
    /// The edges' weight in `baseRatio` (EXIF's is 1 − it): 0 without edges.
    public var edgeWeight: Double = 0
    /// The illumination-edge profiles' median misfit over the median the camera profile's noise
    /// model predicts for it (χ², `IlluminationEdgeRatio.misfitMedian`): 0.7–1.3 where the noise
    /// model describes the frames; well above 1 where it understates their noise (a raw
    /// calibration used on demosaiced frames gave 1.8–3.2) — the confidence map then claims more
    /// than the data hold — or where most ambient edges cross texture. Nil when the edges measured
    /// nothing (set also where they were found only beyond the searched range).
    public var edgeMisfitScale: Double? = nil
    /// `edgeMisfitScale` above which the camera profile's noise model is said to understate the
    /// frames' noise (`fuse` warns). On the hard fixtures' 90 conditions (raw, bilinear and Malvar,
    /// both devices) the scale was 0.67–1.32 with the profiles calibrated for those frames and
    /// 1.79–3.19 on the 60 demosaiced ones with the raw profiles.
    public static let understatedNoiseMisfitScale = 1.6
    /// How far from EXIF's the illumination edges search r₀: ±40 % (real shutter times and gains
    /// are a few per cent off; beyond the range, `edgeRatioBeyondRange`).
    public static let searchedRelativeRange = 0.4
    /// How much blurrier the registered ambient frame is than the flash frame (hand shake during
    /// its exposure, and resampling), per axis (x, y) as a variance in full-resolution pixels²: the
    /// blur given to the flash frame before the edge regression — per axis the larger of the
    /// resampling's and the measured (`RelativeBlur`; the resampling's alone on an axis with too
    /// few edges), at most what a 3-tap blur gives (0.5 pixel² of the measurement's grid). Measured
    /// with EXIF's ratio asked for too (`metadata(height:uncertainty:checkedAgainst:)`); nil when
    /// stage 4a did not run.
    public var ambientBlurVariance: SIMD2<Double>? = nil
    /// Where the illumination-edge profiles' robust location (within two stops of EXIF) lies outside
    /// the range the estimate searches (`IlluminationEdgeRatio.range`, EXIF ±40 %) by more than three
    /// standard errors: that r₀ (nil: it does not). EXIF is then off by more than the estimate
    /// follows; `relativeUncertainty` is at least the discrepancy.
    public var edgeRatioBeyondRange: Double? = nil
    /// The number of profiles beyond the range (0 with `edgeRatioBeyondRange` nil).
    public var edgeSampleCountBeyondRange = 0
    /// The profiles beyond the range, read as illumination edges by their own g, left out of
    /// `edgeRatioBeyondRange` as borders between materials: their ambient channels did not change
    /// in proportion (`IlluminationEdgeRatio.ambientChangesInProportion`).
    public var edgeSampleCountBeyondRangeAtMaterialBorders = 0
    /// Whether `edgeRatioBeyondRange` comes from shadow edges the flash frame holds far weaker
    /// (`IlluminationEdgeRatio.vanishedEdges`: the ambient light dimmed between the frames?).
    public var edgeRatioBeyondRangeFromVanishedEdges = false
    /// The factor on each ambient channel's ratio (green 1): not 1 where the two frames' channels
    /// are on different scales (a raw converter's white balance or colour matrix applied to each
    /// frame differently, `IlluminationEdgeRatio.ChannelScale`) and the edges measured it beyond
    /// doubt (`channelScaleIsSignificant`); the dark-room estimate subtracts `r(y)·k_c·A_c`.
    public var channelScale = SIMD3<Double>(1, 1, 1)
    /// The channel scale the edges measured, applied or not (nil: too few edges).
    public var measuredChannelScale: SIMD3<Double>? = nil
    /// The same from the edges' coarser profiles (`IlluminationEdgeRatio.coarseChannelScaleProfileError`), and
    /// its relative standard errors (nil: too few edges).
    public var coarseChannelScale: SIMD3<Double>? = nil, coarseChannelScaleError: SIMD3<Double>? = nil
    /// The share of the coarse profiles whose channels agree (`IlluminationEdgeRatio.ChannelScale.agreeingFraction`).
    public var coarseChannelAgreement: Double? = nil
    /// The same share with the coarse scale applied (`agreeingFractionScaled`).
    public var coarseChannelAgreementScaled: Double? = nil

    /// r₀ as the illumination edges measure it in each of `IlluminationEdgeRatio.rowBandCount`
    /// bands of lines along `readoutAxis` (rows top to bottom, or columns left to right), with the
    /// banding removed (nil: too few profiles there, fewer than `IlluminationEdgeRatio.minimumSamples`);
    /// empty without edges.
    public var edgeRatioByRowBand: [Double?] = []
    /// How many distinct lines of stage 4a's reduced pair each band's edges lie on (nil where the
    /// band has no ratio): the degrees of freedom plus one of the band's test (`rowBandExcess`).
    public var edgeLineCountByRowBand: [Int?] = []
    /// Where those bands disagree with the frame's r₀ beyond their errors (`rowBandExcess`): the
    /// relative variance added to `relativeUncertainty` for it (nil: they agree).
    public var rowBandExcessVariance: Double? = nil
    /// r₀ as the illumination edges measure it in each channel alone (red, green, blue; nil: too
    /// few profiles measured that channel); empty without edges.
    public var edgeRatioByChannel: [Double?] = []
    /// Where those channels disagree beyond their errors (`IlluminationEdgeRatio.channelHeterogeneity`):
    /// the relative variance added to `relativeUncertainty` for it, (weight·τ/r₀)² with the edges'
    /// `edgeWeight` (nil: they agree).
    public var edgeChannelExcessVariance: Double? = nil
    /// Where they disagree so by more than the edges' own channel biases, each channel's signed
    /// relative deviation from the others beyond them (`channelDeviation`; nil: they agree), which
    /// the confidence counts by its direction.
    public var edgeChannelDeviation: SIMD3<Double>? = nil

    /// The share of the profiles that read as illumination edges (`IlluminationEdgeRatio.ThreeChannelProfile.readsAsIlluminationEdge`) whose three channels agree
    /// (`IlluminationEdgeRatio.ChannelAgreement`; nil: too few such profiles).
    public var edgeChannelAgreement: Double? = nil
    /// Where that share is below `ambientColourChangeAgreement` (the ambient light in the flash frame
    /// is not the ambient frame's colour): per channel, the signed relative error of the subtracted
    /// ratio against the one the edges read in that channel (`ambientColourChange`; nil: not so). Not
    /// in `relativeUncertainty`: the confidence counts it by its direction, beside it.
    public var ambientColourChangeError: SIMD3<Double>? = nil

    /// What the confidence counts of the channels' disagreement, by its direction: each channel's signed
    /// relative error of the subtracted ratio, `ambientColourChangeError` where the ambient light
    /// changed colour, else `edgeChannelDeviation` where the edges' channels part beyond their errors;
    /// nil where they agree. One error across the channels: `Confidence` counts `ε_c·A_c`.
    public var ambientColourDeviation: SIMD3<Double>? { ambientColourChangeError ?? edgeChannelDeviation }

    /// The frames' pixel noise against their noise models, ambient relative to flash
    /// (`NoiseConsistency`; nil: not measured).
    public var noiseConsistency: NoiseConsistency? = nil

    /// The lines `lineRatios`, the banding and the edges' bands (`edgeRatioByRowBand`) run along:
    /// the axis whose banding fit measures its flicker the more clearly (`estimate`); rows when
    /// neither finds any.
    public var readoutAxis: ReadoutAxis = .rows

    /// The edges' r₀ from the profiles along the lines of the readout (within one line) and across
    /// them (on the rows of those along them), the profiles each rests on, how far apart in their
    /// standard errors, and whether those across were left out for it
    /// (`IlluminationEdgeRatio.checkedAcrossLines`); nil (0) where none was measured.
    public var edgeRatioAlongLines: Double? = nil, edgeRatioAcrossLines: Double? = nil
    /// The profiles along and across the lines that those r₀ rest on.
    public var edgeSampleCountAlongLines = 0, edgeSampleCountAcrossLines = 0
    /// How far apart the two r₀ are, in their combined standard errors.
    public var edgeLineOrientationSeparation: Double? = nil
    /// Whether the profiles across the lines were left out for it.
    public var edgeAcrossLinesRefused = false
    /// The relative variance counted because r₀ rests on profiles across the lines alone under a
    /// fitted banding (`uncheckedAcrossLines`); nil where it is not.
    public var uncheckedAcrossLinesVariance: Double? = nil

    /// This estimate with the frames' noise consistency recorded and, where it says the ISO tags are
    /// not the captures' (`NoiseConsistency.disagrees`) and no illumination edge measured the ratio
    /// (`source` is `metadata`), EXIF's ratio counted as uncertain by that factor:
    /// `relativeUncertainty` at least `ratioErrorFactor − 1`, so that the confidence falls wherever
    /// the ambient light matters. Where the edges measured it, the measurement stands (the noise
    /// then says something else is off, e.g. a frame denoised by its converter; `fuse` warns).
    public func counting(_ noise: NoiseConsistency?) -> AmbientRatioEstimate {
        var counted = self
        counted.noiseConsistency = noise
        if let noise, noise.disagrees, source == .metadata {
            counted.relativeUncertainty = max(relativeUncertainty, noise.ratioErrorFactor - 1)
        }
        return counted
    }

    /// The exposure ratio as the surfaces' colours read it (`SurfaceColourRatio`), relative to the
    /// lines' `r(y)`; measured only where no shadow edge measured the ratio (nil otherwise, or where
    /// too few surfaces qualify).
    public var surfaceColourRatio: SurfaceColourRatio? = nil
    /// Where that reading contradicts the ratio subtracted — further from it than three standard
    /// errors of the two together (the reading's and the tags' `metadataUncertainty`) — the ratio it
    /// reads (× EXIF's); nil otherwise. `relativeUncertainty` is then at least the difference.
    public var surfaceColourContradiction: Double? = nil

    /// This estimate checked by the surfaces' colours (`SurfaceColourRatio`) where no shadow edge
    /// measured the ratio (none within the searched range or beyond it); itself elsewhere. The
    /// reading is taken on `reduced` relative to `measured`'s lines — this estimate's own, or with
    /// `--exposure-ratio metadata` the measurement's, whose banding the tags' flat lines leave in the
    /// flash frame (read against flat lines, a 100 Hz flicker of depth 0.5 with the tags right read
    /// 0.84) — and compared with this estimate's ratio (`checked(bySurfaceColours:metadataUncertainty:)`).
    /// The cells stage 4c flagged (`moved`, where the frames disagree) are left out.
    func checkedBySurfaceColours(of reduced: ReducedFramePair, lines measured: AmbientRatioEstimate, shading: FlashShading?,
                                 excluding moved: FrameDisagreement, metadataUncertainty: Double) -> AmbientRatioEstimate {
        guard edgeRatio == nil, edgeRatioBeyondRange == nil else { return self }
        let sameGrid = moved.cellWidth == reduced.width && moved.cellHeight == reduced.height
            && moved.block == reduced.block && moved.origin == reduced.origin && moved.cells.count == reduced.width * reduced.height
        // (Without an edge, `measured`'s r₀ is EXIF's 1: its lines are 1 plus the banding.)
        let reading = SurfaceColourRatio.measure(reduced, lineRatios: measured.lineRatios, readout: measured.readoutAxis,
                                                 channelScale: measured.channelScale,
                                                 bandingAmplitude: measured.banding.reduce(0) { $0 + $1.amplitude }, shading: shading,
                                                 excluded: sameGrid ? moved.cells : nil)
        return checked(bySurfaceColours: reading, metadataUncertainty: metadataUncertainty)
    }

    /// This estimate with the surfaces' `reading` recorded (the caller found no shadow edge that
    /// measured the ratio): where the reading puts the ratio further from the lines' than three
    /// standard errors of the two together allow — in log ratio, `|ln ρ| > 3·√((σ/ρ)² + u²)` with
    /// u the tags' `metadataUncertainty` — the difference `|ρ − 1|` is the ratio's relative
    /// uncertainty, so that the confidence falls wherever the ambient light moves the colour
    /// (`surfaceColourContradiction`). The ratio subtracted is not changed: the reading is a check of
    /// the tags, and a scene can fool it (a flash whose colour changes across the frame with no
    /// shading map to correct it read 1.14 with the tags right).
    public func checked(bySurfaceColours reading: SurfaceColourRatio?, metadataUncertainty: Double) -> AmbientRatioEstimate {
        guard let reading else { return self }
        var checked = self
        checked.surfaceColourRatio = reading
        let relative = reading.standardError / reading.ratio
        if abs(log(reading.ratio)) > 3 * (relative * relative + metadataUncertainty * metadataUncertainty).squareRoot() {
            checked.surfaceColourContradiction = reading.ratio * baseRatio
            checked.relativeUncertainty = max(relativeUncertainty, abs(reading.ratio - 1))
        }
        return checked
    }

    /// Mean of `r` over the lines.
    public var meanRatio: Double {
        lineRatios.isEmpty ? baseRatio : lineRatios.reduce(0) { $0 + Double($1) } / Double(lineRatios.count)
    }

    /// EXIF taken as it is: `r(y) = 1`.
    public static func metadata(height: Int, uncertainty: Double) -> AmbientRatioEstimate {
        AmbientRatioEstimate(baseRatio: 1, source: .metadata, banding: [], lineRatios: [Float](repeating: 1, count: height),
                             relativeUncertainty: uncertainty, edgeSampleCount: 0)
    }

    /// EXIF taken as it is (`--exposure-ratio metadata`), checked against what the images measured
    /// (`measured`, this pair's estimate): `r(y) = 1` is kept, as asked, but where the shadow edges
    /// put r₀ beyond the searched range, or within it further from 1 than three standard errors of
    /// the two together (`metadataContradiction`), the difference is its relative uncertainty, and a
    /// flicker banding found is counted by its RMS along the lines (`uncompensatedBanding`): the
    /// confidence then falls wherever the ambient light matters. Before, the option turned every such
    /// check off: an ambient ISO tag 4× off gave `constantColor` at 0.93 and 6.7 ΔE00 (the default
    /// mode: a warning and `fallback`). The ambient frame's extra blur is the frames', not the
    /// ratio's, and is kept (`ambientBlurVariance`, which stage 4c gives the flash frame): without it
    /// a still pair with an 8 px hand shake had 0.8 % of its frame flagged as moved in this mode and
    /// none in the default one.
    public static func metadata(height: Int, uncertainty: Double, checkedAgainst measured: AmbientRatioEstimate) -> AmbientRatioEstimate {
        var m = metadata(height: height, uncertainty: uncertainty)
        m.ambientBlurVariance = measured.ambientBlurVariance
        m.edgeRatio = measured.edgeRatio; m.edgeRelativeUncertainty = measured.edgeRelativeUncertainty
        m.edgeRatioBeyondRange = measured.edgeRatioBeyondRange
        m.edgeSampleCountBeyondRange = measured.edgeSampleCountBeyondRange
        m.edgeRatioBeyondRangeFromVanishedEdges = measured.edgeRatioBeyondRangeFromVanishedEdges
        m.edgeSampleCountBeyondRangeAtMaterialBorders = measured.edgeSampleCountBeyondRangeAtMaterialBorders
        var variance = uncertainty * uncertainty
        if let far = measured.edgeRatioBeyondRange {
            variance = max(variance, (far - 1) * (far - 1))
        } else if let e = measured.edgeRatio, let s = measured.edgeRelativeUncertainty,
                  abs(e - 1) > 3 * (s * s + uncertainty * uncertainty).squareRoot() {
            m.metadataContradiction = e
            variance = max(variance, (e - 1) * (e - 1))
        }
        if !measured.banding.isEmpty, !measured.lineRatios.isEmpty {
            let mean = measured.meanRatio
            let spread = measured.lineRatios.reduce(0) { $0 + (Double($1) / mean - 1) * (Double($1) / mean - 1) } / Double(measured.lineRatios.count)
            m.uncompensatedBanding = measured.banding
            variance += spread
        }
        m.relativeUncertainty = variance.squareRoot()
        return m
    }

    /// With `--exposure-ratio metadata`: the edges' r₀ where it contradicts EXIF (`metadata(height:uncertainty:checkedAgainst:)`), else nil.
    public var metadataContradiction: Double? = nil
    /// With `--exposure-ratio metadata`: the flicker banding found and left in (its RMS counted in
    /// `relativeUncertainty`); empty otherwise.
    public var uncompensatedBanding: [RowBanding] = []

    /// Estimates `r(y)` from the flash frame and the nominal dark-room estimate (`A = F − D`).
    /// `metadataUncertainty` is the relative uncertainty of the EXIF ratio, used when no edge is found.
    /// `registration` is the one `darkRoom` was resampled with (its interpolation blurs `A` a little;
    /// the edge measurement blurs `F` alike).
    ///
    /// The readout axis is not assumed: the banding is fitted along the rows and along the columns
    /// (the pair transposed), and the estimate follows the axis whose banding is the more clearly
    /// measured (`RowBandingFit.bandingSignificance`; rows when neither finds any). A rolling shutter
    /// reads one axis, and a flicker is the same along the lines it read at once, so the other
    /// axis's fit finds no flicker; it may fit a trend to what its fall-off model misses, as large
    /// but far less certain (at 800 lux, 0.5 cycles of 0.16 across the width against the rows'
    /// 2.39 cycles of 0.15, with a thousand times their parameters' variance). On the hard
    /// fixtures' Nikon set turned by 90° (as raw converters store portrait captures), fitting rows
    /// alone left the banding in: repeatability 0.135 → 1.52 ΔE00, variance reduction 99.9 → 73 %,
    /// exposure ratio error 1.03 → 2.29 %.
    public static func estimate(flash: LinearFrame, darkRoom: DarkRoomEstimate, registration: RegistrationResult,
                                metadataUncertainty: Double) -> AmbientRatioEstimate {
        estimate(reduced: reducedPair(flash: flash, darkRoom: darkRoom, registration: registration),
                 metadataUncertainty: metadataUncertainty)
    }

    /// The block means stage 4a works on (`ReducedFramePair`), from the flash frame and the nominal
    /// dark-room estimate resampled with `registration`.
    static func reducedPair(flash: LinearFrame, darkRoom: DarkRoomEstimate, registration: RegistrationResult) -> ReducedFramePair {
        let interpolation = interpolationVariance(registration, width: flash.image.width, height: flash.image.height)
        return ReducedFramePair(flash: flash, darkRoom: darkRoom, interpolationVariance: interpolation)
    }

    /// The same from the reduced pair (`reducedPair`), which `FlashLightPresence` reads as well.
    static func estimate(reduced: ReducedFramePair, metadataUncertainty: Double) -> AmbientRatioEstimate {
        let w = reduced.fullWidth, h = reduced.fullHeight
        let rows = EdgeAnalysis(reduced)
        // The banding is fitted on F − r̄·A (`RowBandingFit.fit(_:ratio:)`): r̄ is first the edges' r₀
        // on the pair as it is (within the searched range or beyond it; EXIF's 1 where they find
        // none), which any banding only scatters; a banding fitted with an r̄ far off holds some of
        // the ambient light's structure, and the edges read through it (EXIF 2× off: beyond the
        // range at 0.35 for 0.50 when fitted with EXIF's). Where the edges then find r₀ further
        // than `bandingRefitOffset` from r̄, it is fitted again with r̄ = r₀, up to `bandingRefits` times.
        let unbanded = rows.measure(.none).0
        let fittedRatio = unbanded.result?.ratio ?? unbanded.beyondRange?.ratio ?? 1
        // The two axes' fits side by side (each is partly serial).
        let turned = reduced.transposed()
        var fits = [RowBandingFit](repeating: .none, count: 2)
        fits.withUnsafeMutableBufferPointer { buffer in
            let out = SharedMutableBuffer(buffer), pairs = UncheckedSendableBox((reduced, turned))
            DispatchQueue.concurrentPerform(iterations: 2) { i in
                out[i] = RowBandingFit.fit(i == 0 ? pairs.value.0 : pairs.value.1, ratio: fittedRatio)
            }
        }
        let rowFit = fits[0], columnFit = fits[1]
        if columnFit.bandingSignificance > rowFit.bandingSignificance {
            return estimate(EdgeAnalysis(turned), readout: .columns, lineCount: w, fittedRatio: fittedRatio, bandFit: columnFit,
                            metadataUncertainty: metadataUncertainty)
        }
        return estimate(rows, readout: .rows, lineCount: h, fittedRatio: fittedRatio, bandFit: rowFit,
                        metadataUncertainty: metadataUncertainty)
    }

    /// The reduced pair along one readout axis, halved on two grid phases for the edges.
    struct EdgeAnalysis {
        let reduced: ReducedFramePair, halved: ReducedFramePair, shifted: ReducedFramePair

        init(_ reduced: ReducedFramePair) {
            self.reduced = reduced
            halved = reduced.halved(); shifted = reduced.halved(offset: 1)
        }

        /// r₀ measured on the edges of the pair with `bandFit`'s banding removed, and the blur given
        /// to F′ for it (a = variance/2 in the halved pair's pixels, per axis of this pair).
        func measure(_ bandFit: RowBandingFit) -> (IlluminationEdgeRatio.Measurement, blur: SIMD2<Double>) {
            let banded = halved.bandingFree(bandFit.components)
            // The blur to give F′: at least the resampling's, more where the edges show more (hand
            // shake). The ambient exposure is the longer one, so its blur is not below the
            // resampling's; a measurement under it is the measurement's own error (±0.2 px² on
            // 600 × 400 pairs without shake).
            let measured = RelativeBlur.measure([(halved, banded.channels), (shifted, shifted.bandingFree(bandFit.components).channels)])
            // A 3-tap blur can give at most a = 0.25 (variance 0.5 pixel², [¼, ½, ¼]).
            let resampling = reduced.interpolationVariance / blockArea / 2
            let blur = SIMD2(min(0.25, max(resampling.x, measured.x?.a ?? 0)), min(0.25, max(resampling.y, measured.y?.a ?? 0)))
            return (IlluminationEdgeRatio.measure(halved, banded: banded, blur: blur), blur)
        }

        /// The halved pair's block area in full-resolution pixels.
        var blockArea: Double { Double(halved.block * halved.block) }
    }

    /// The estimate along one readout axis (`analysis` holds the pair turned so that the lines are
    /// its rows), from the banding `bandFit` first fitted with `fittedRatio`.
    static func estimate(_ analysis: EdgeAnalysis, readout: ReadoutAxis, lineCount: Int, fittedRatio initialRatio: Double,
                         bandFit initialFit: RowBandingFit, metadataUncertainty: Double) -> AmbientRatioEstimate {
        let halved = analysis.halved, k2 = analysis.blockArea
        var fittedRatio = initialRatio, bandFit = initialFit
        var (edgeMeasurement, blur) = analysis.measure(bandFit)
        for _ in 0..<Self.bandingRefits {
            // (Not from a lamp dimmed between the frames, `IlluminationEdgeRatio.vanishedEdges`: a banding
            // fitted with its ratio let a few edges measure one within the range, which hid the dimming.)
            let beyond = edgeMeasurement.beyondRange.flatMap { $0.fromVanishedEdges ? nil : $0.ratio }
            guard let r0 = edgeMeasurement.result?.ratio ?? beyond,
                  abs(r0 / fittedRatio - 1) > Self.bandingRefitOffset else { break }
            fittedRatio = r0
            bandFit = RowBandingFit.fit(analysis.reduced, ratio: r0)
            (edgeMeasurement, blur) = analysis.measure(bandFit)
        }
        // Channels on different scales in the two frames (`IlluminationEdgeRatio.ChannelScale`):
        // where the edges say so beyond doubt, the ambient channels are rescaled to the flash frame's
        // and r₀ measured again on green's scale.
        var channelScale = SIMD3<Double>(1, 1, 1), channelScaleError = 0.0
        let measuredChannelScale = edgeMeasurement.channelScale, edgeMeasurementCoarse = edgeMeasurement.coarseChannelScale
        // The scale stands only where the edges agree on r₀ at least as widely with it as without it
        // (`scaleKeepsEdges`): a spot light's profiles under a banding not quite removed read a
        // scale (1.73, 1, 4.97) from 40 profiles of a pair developed alike, with which no
        // illumination edge was left, against 326 without it.
        if let (factor, error) = Self.channelScaleToApply(edgeMeasurement) {
            let scaled = halved.scalingAmbientChannels(factor)
            let rescaled = IlluminationEdgeRatio.measure(scaled, banded: scaled.bandingFree(bandFit.components), blur: blur)
            if Self.scaleKeepsEdges(unscaled: edgeMeasurement.result, scaled: rescaled.result) {
                edgeMeasurement = rescaled
                channelScale = factor
                channelScaleError = error
            }
        }
        let edges = edgeMeasurement.result
        let (base, measuredSigma, weight) = edges.map {
            combined(metadataUncertainty: metadataUncertainty, edgeRatio: $0.ratio, edgeStandardError: $0.standardError)
        } ?? (1, metadataUncertainty, 0)
        // The illumination edges read r₀ beyond the searched range: EXIF is off by more than the
        // estimate can follow. r₀ stays, but its uncertainty is at least that discrepancy, so the
        // confidence falls wherever the ambient light matters (issue 7: lower it where it cannot be
        // compensated) — and `fuse` says so.
        let baseSigma = edgeMeasurement.beyondRange.map { max(measuredSigma, abs($0.ratio - base) / max(base, 1e-9)) } ?? measuredSigma
        // The banding is fitted as an absolute change of r (it measures changes of F − r̄·A over A), so it
        // is added to r₀ as it is.
        var lines = [Float](repeating: 0, count: lineCount)
        for line in 0..<lineCount {
            let t = (Double(line) + 0.5) / Double(lineCount)
            lines[line] = Float(base + bandFit.components.reduce(0) { $0 + $1.value(atFrameFraction: t) })
        }
        // Where the banding model does not describe the rows (a flicker slower than a cycle per frame
        // beside a light that varies down it), the edges' r₀ differs from one band of rows to the next.
        let bandExcess = edges.flatMap { Self.rowBandExcess($0, banding: bandFit.components) }
        let channelExcess = edges.flatMap { Self.channelExcess($0, edgeWeight: weight, ratio: base) }
        let channelDeviation = channelExcess == nil ? nil : edges.flatMap { Self.channelDeviation($0, edgeWeight: weight, ratio: base) }
        let colourChange = edgeMeasurement.channelAgreement.flatMap { Self.ambientColourChange($0, ratio: base) }
        let orientation = edgeMeasurement.lines
        let unchecked = edges == nil ? nil : Self.uncheckedAcrossLines(orientation, banding: bandFit.components, ratio: base)
        let sigma = (baseSigma * baseSigma + bandFit.relativeVariance + channelScaleError * channelScaleError
            + (bandExcess ?? 0) + (channelExcess ?? 0) + (unchecked ?? 0)).squareRoot()
        // The blur per axis of the frame (this pair's are exchanged when it was turned).
        let frameBlur = readout == .rows ? 2 * k2 * blur : 2 * k2 * SIMD2(blur.y, blur.x)
        var estimate = AmbientRatioEstimate(baseRatio: base, source: edges == nil ? .metadata : .illuminationEdges, banding: bandFit.components, lineRatios: lines,
                                    relativeUncertainty: sigma, edgeSampleCount: edges?.sampleCount ?? 0,
                                    edgeRatio: edges?.ratio, edgeRelativeUncertainty: edges.map { $0.standardError / $0.ratio },
                                    edgeWeight: weight, edgeMisfitScale: edges?.misfitScale
                                        ?? (edgeMeasurement.beyondRange != nil ? edgeMeasurement.misfitScale : nil), ambientBlurVariance: frameBlur,
                                    edgeRatioBeyondRange: edgeMeasurement.beyondRange?.ratio,
                                    edgeSampleCountBeyondRange: edgeMeasurement.beyondRange?.sampleCount ?? 0,
                                    edgeRatioBeyondRangeFromVanishedEdges: edgeMeasurement.beyondRange?.fromVanishedEdges ?? false,
                                    channelScale: channelScale, measuredChannelScale: measuredChannelScale?.factor,
                                    coarseChannelScale: edgeMeasurementCoarse?.factor, coarseChannelScaleError: edgeMeasurementCoarse?.relativeStandardError,
                                    coarseChannelAgreement: edgeMeasurementCoarse?.agreeingFraction,
                                    coarseChannelAgreementScaled: edgeMeasurementCoarse?.agreeingFractionScaled,
                                    edgeRatioByRowBand: edges.map { $0.rowBands.map { $0?.centre } } ?? [],
                                    edgeLineCountByRowBand: edges.map { $0.rowBands.map { $0?.rowCount } } ?? [],
                                    rowBandExcessVariance: bandExcess,
                                    edgeRatioByChannel: edges.map { $0.channels.map { $0?.centre } } ?? [],
                                    edgeChannelExcessVariance: channelExcess, edgeChannelDeviation: channelDeviation,
                                    edgeChannelAgreement: edgeMeasurement.channelAgreement?.agreeingFraction,
                                    ambientColourChangeError: colourChange, readoutAxis: readout,
                                    edgeRatioAlongLines: orientation?.along, edgeRatioAcrossLines: orientation?.across,
                                    edgeSampleCountAlongLines: orientation?.alongCount ?? 0,
                                    edgeSampleCountAcrossLines: orientation?.acrossCount ?? 0,
                                    edgeLineOrientationSeparation: orientation?.separation,
                                    edgeAcrossLinesRefused: orientation?.acrossRefused ?? false,
                                    uncheckedAcrossLinesVariance: unchecked)
        estimate.edgeSampleCountBeyondRangeAtMaterialBorders = edgeMeasurement.bordersBeyondRange
        return estimate
    }

    /// The relative variance to count where the edges' r₀ comes from profiles across the lines of the
    /// readout alone, with none along them to check it (`IlluminationEdgeRatio.checkedAcrossLines`),
    /// and a banding was fitted: the square of the banding's summed amplitudes over r₀, as far as a
    /// stripe of the ambient frame that the model leaves can pull such a profile (its g lies between 0
    /// and r₀, nearer 0 the less of the stripe the model takes). Nil otherwise: without a banding,
    /// the rows' exposures are one.
    static func uncheckedAcrossLines(_ lines: IlluminationEdgeRatio.LineOrientation?, banding: [RowBanding], ratio: Double) -> Double? {
        guard lines?.unchecked == true, !banding.isEmpty, ratio > 0 else { return nil }
        let relative = banding.reduce(0) { $0 + $1.amplitude } / ratio
        return relative * relative
    }

    /// Below this share of agreeing channels (`IlluminationEdgeRatio.ChannelAgreement`) the ambient
    /// light in the flash frame is taken not to be the ambient frame's: 0.5, where most of the edges
    /// that read as the ambient light's do not vanish at one ratio. Since reflectance edges, whose
    /// channels never agree, are left out (session 36), legitimate pairs read 0.70–0.99 on the 90
    /// hard conditions, 0.93–0.99 on the committed ones and 0.54 at least on a probe's 72 renders
    /// (the Sigma under a sodium lamp) but for narrow blue LEDs, which read as a change (findings,
    /// session 36), and 0.45 under a 25 px diagonal hand shake, whose channels disagree without a
    /// common shift (`ChannelAgreement.readsApart(from:)` tells it from a change); frames whose
    /// ambient light changed colour read 0.00–0.39. The 0.35 of before
    /// was set while reflectance edges still diluted the share (legitimate pairs 0.54 at least,
    /// changed ones 0.04–0.22): without them a blue LED spot on the flash frame's right half that
    /// the ambient frame lacks read 0.39, `constantColor` at 0.883 with 18 ΔE00 (findings, session 37).
    public static let ambientColourChangeAgreement = 0.5

    /// Per channel, how far off the subtracted `ratio` (r₀, × EXIF's) is where most ambient edges do
    /// not vanish from the flash frame at one ratio in every channel (`ChannelAgreement.agreeingFraction`
    /// below `ambientColourChangeAgreement`) and their channels read different ratios
    /// (`ChannelAgreement.readsApart(from:)`): the ambient light changed colour between the two frames
    /// (a lamp switched on or off, daylight through a cloud) or the frames were developed unlike each
    /// other beyond what a channel scale within the searched range explains. No one r then takes the
    /// ambient light out of D, and D holds the difference of two ambient lights: an 800 lux 3000 K
    /// flash frame beside a 200 lux 6500 K ambient frame came out 18 ΔE00 off, `constantColor` at
    /// 0.92, before this was counted. Each channel's error is `g_c / ratio − 1`, g_c the ratio the
    /// green-selected edges read in that channel (green's location times the channel's over green's;
    /// 1 where one was not measured, whose sign nothing gives), which the confidence counts by its
    /// direction wherever the ambient light matters (counted as magnitudes, every channel's of one
    /// sign, a larger error could move the colour less: FL11's flash frame beside the warm LED's
    /// ambient frame read 0.513 flagged, 0.449 not). Nil where most agree.
    static func ambientColourChange(_ a: IlluminationEdgeRatio.ChannelAgreement, ratio: Double) -> SIMD3<Double>? {
        guard a.agreeingFraction < ambientColourChangeAgreement, ratio > 0, a.readsApart(from: ratio) else { return nil }
        func error(_ g: Double?) -> Double { g.map { $0 / ratio - 1 } ?? 1 }
        return SIMD3(error(a.green.flatMap { g in a.redOverGreen.map { g * $0 } }), error(a.green),
                     error(a.green.flatMap { g in a.blueOverGreen.map { g * $0 } }))
    }

    /// The relative variance by which the rows' ratio is off where the illumination edges, measured
    /// band by band of rows (`IlluminationEdgeRatio.Result.rowBands`, the banding removed), disagree
    /// with the frame's r₀: nil where fewer than two bands hold `IlluminationEdgeRatio.minimumSamples`
    /// profiles (as many as r₀ needs) or where they agree (χ² of their differences from r₀ within its 99 % point, k − 1
    /// degrees of freedom), else the largest band's excess `(r_k − r₀)² − σ_k²` over r₀². Each band's
    /// difference is weighed as a t statistic with as many degrees of freedom as its profiles lie on
    /// rows less one (`IlluminationEdgeRatio.rowBandLocation`, `StudentT.normalEquivalent`), and σ_k
    /// is its standard error on that scale: profiles along one edge that runs along a row measure
    /// that edge more than the rows (at 1200 × 800 a penumbra along the top row of patches put the
    /// top band at 1.195 against 1.082–1.087 from profiles on three rows, and the ratio was given 10 %
    /// for rows right to 0.3 %; the bands of the flicker cases below lie on 14–25 rows). With the
    /// banding model right, every band reads r₀ within its error; under a flicker slower than a cycle
    /// per frame beside a light that varies down the frame (8 ms readout, 100 Hz, a spot near the
    /// top) the fitted sinusoid left the rows 1–3 % off at the frame's ends where it stated 0.3–0.4 %,
    /// and the bottom band of edges read 1–1.6 % from r₀ at 0.2 % error. The excess is counted over the
    /// whole frame (the confidence's ratio error is one number): lower confidence where the
    /// compensation cannot be trusted, issue 7. Bands with fewer profiles are left out: 24–33
    /// profiles at the top of the hard fixtures' 800 lux frames, a few crossing patch borders as
    /// well as the shadow, read 6–14 % high while the rows there were right to 0.4 %.
    ///
    /// With a fitted `banding` the excess is at most (2·Σ amplitudes / r₀)², as far as a fitted
    /// banding can be from one of its own size (half a cycle out of phase). Without one, the rows are
    /// r₀ throughout, and a flicker the fit missed (0.8 cycles per frame beside a red spot at the
    /// bottom: rows 12–16 % off, 22.6 % of the confident pixels more than 3 ΔE00 off) moves some
    /// bands' ratio above the edges' mean and others below it: then a band beyond two of its
    /// standard errors on each side of r₀ is required. A single band apart while the others agree
    /// is something local to its edges, not the rows: beside a blue LED spot, with the camera moved
    /// or shaken between the frames, 50–70 profiles at the spot's pool read 1.10–1.24 in the top
    /// band under steady light (a review: 9 of 15 Sigma and 7 of 8 Nikon renders), and the whole
    /// frame's ratio was given 11–24 % for rows right to 0.5 %.
    static func rowBandExcess(_ edges: IlluminationEdgeRatio.Result, banding: [RowBanding]) -> Double? {
        let bands = edges.rowBands.compactMap { $0 }
        guard bands.count >= 2, edges.ratio > 0 else { return nil }
        // Each band's deviation on the scale of z: Student's t with (its rows − 1) degrees of freedom
        // (`IlluminationEdgeRatio.rowBandLocation`; a band on one row says nothing about rows).
        let z = bands.map {
            StudentT.normalEquivalent(($0.centre - edges.ratio) / $0.standardError, degreesOfFreedom: $0.rowCount - 1)
        }
        guard z.reduce(0, { $0 + $1 * $1 }) > chiSquare99[bands.count - 1] else { return nil }
        if banding.isEmpty && !(z.contains { $0 > 2 } && z.contains { $0 < -2 }) { return nil }
        // (r_k − r₀)² less the square of its standard error on the same scale, (r_k − r₀)/z_k.
        let excess = max(0, zip(bands, z).map { band, z in
            z == 0 ? 0 : pow(band.centre - edges.ratio, 2) * (1 - 1 / (z * z))
        }.max()!)
        let bound = 2 * banding.reduce(0) { $0 + $1.amplitude }
        return (banding.isEmpty ? excess : min(excess, bound * bound)) / (edges.ratio * edges.ratio)
    }

    /// The relative variance by which r₀ (`ratio`) is off where the edges' channels read it apart
    /// beyond their errors (`IlluminationEdgeRatio.channelHeterogeneity`): their spread τ² is a bias
    /// of the edges' value, which enters r₀ with the edges' weight (r₀ − 1 = weight·(edges − 1)), so
    /// (weight·τ/r₀)²; nil where the channels agree or EXIF alone was taken (weight 0). The weight
    /// itself is left as the edges' noise sets it: counted in the weighing as well, τ² moved r₀ toward
    /// EXIF, −1.34 → −0.66 % on a demosaiced Sigma pair under a warm LED but −1.97 → −2.37 % on the
    /// committed all-effects condition, whose EXIF is 3.8 % off.
    static func channelExcess(_ edges: IlluminationEdgeRatio.Result, edgeWeight weight: Double, ratio: Double) -> Double? {
        guard weight > 0, ratio > 0, let tau2 = edges.channelExcessVariance else { return nil }
        return weight * weight * tau2 / (ratio * ratio)
    }

    /// Each channel's signed relative deviation of r₀ where the edges' channels part beyond their
    /// errors (`IlluminationEdgeRatio.channelHeterogeneity`) and beyond the edges' own channel biases:
    /// `d_c = weight·(r_c − r̄)·s / r₀`, r̄ the channels' mean weighted by 1/SE², with the edges' weight
    /// as in `channelExcess`, shrunk by s = √(1 − (k − 1)/Q) (Cochran's Q over k channels), the share
    /// of the spread beyond the noise that DerSimonian & Laird's τ² keeps; then `channelScaleLimit`
    /// (3 %) less in size: on frames of one light and one development (the hard fixtures:
    /// demosaicing, reflectance edges under coloured light) the channels read within 3 % of green's,
    /// about 2 % of their mean, and D's error is the one common ratio's. The edges' weight scales it
    /// as it does τ (were the edges' channels right, the subtracted ratio's error would be the whole
    /// deviation: where EXIF carries weight, this counts less). Beyond it the direction is the error's: the ambient light's colour in
    /// the flash frame is not the ambient frame's, and a ratio too high in red and too low in blue
    /// moves the subtracted colour, which one relative error common to the channels (τ in
    /// `relativeUncertainty`) mostly does not — 3000 K beside 6500 K at 50 lux read 1.35, 0.81, 0.62
    /// × EXIF, 84 % of the edges agreeing, with three patches 3.1–4.9 ΔE00 off in chroma at
    /// confidence 0.81–0.86. A channel not located deviates by 0. Nil where fewer than two channels are located or none
    /// deviates beyond the limit.
    static func channelDeviation(_ edges: IlluminationEdgeRatio.Result, edgeWeight weight: Double, ratio: Double) -> SIMD3<Double>? {
        guard weight > 0, ratio > 0 else { return nil }
        let located = edges.channels.enumerated().compactMap { c, l in
            l.flatMap { $0.standardError > 0 ? (c, $0.centre, 1 / ($0.standardError * $0.standardError)) : nil }
        }
        guard located.count >= 2 else { return nil }
        let sw = located.reduce(0) { $0 + $1.2 }
        let mean = located.reduce(0) { $0 + $1.2 * $1.1 } / sw
        let q = located.reduce(0) { $0 + $1.2 * ($1.1 - mean) * ($1.1 - mean) }
        guard q > Double(located.count - 1) else { return nil }
        let shrink = (1 - Double(located.count - 1) / q).squareRoot()
        var deviation = SIMD3<Double>(repeating: 0)
        for (c, centre, _) in located {
            let d = weight * (centre - mean) * shrink / ratio
            deviation[c] = d < 0 ? min(0, d + channelScaleLimit) : max(0, d - channelScaleLimit)
        }
        return deviation == .zero ? nil : deviation
    }

    /// The 99 % points of χ² with 1…3 degrees of freedom (index = degrees of freedom).
    static let chiSquare99 = [0, 6.635, 9.210, 11.345]

    /// The channel scale to try and its relative uncertainty: the precise one where it is
    /// significant (`channelScaleIsSignificant`); where no profile is precise enough for that (the
    /// flash outweighs the ambient light), the coarse profiles' scale, when it is grossly off
    /// (`coarseChannelScaleIsGross`), with three of its standard errors as its uncertainty (its
    /// selection bias: up to 3.1 on pairs whose channels agree) — unless the illumination edges lie
    /// beyond the searched range: the profiles it selects within the range are then not those
    /// edges (EXIF 2× off gave a bogus scale, and the edges' location moved from 0.50 to 0.35).
    static func channelScaleToApply(_ m: IlluminationEdgeRatio.Measurement) -> (factor: SIMD3<Double>, error: Double)? {
        if let k = m.channelScale {
            return channelScaleIsSignificant(k) ? (k.factor, k.relativeStandardError.max()) : nil
        }
        guard m.beyondRange == nil, let k = m.coarseChannelScale, coarseChannelScaleIsGross(k) else { return nil }
        return (k.factor, 3 * k.relativeStandardError.max())
    }

    /// Whether a channel scale is borne out by the edges: with it, at least as many profiles agree on
    /// r₀ as without it. Where the frames' channels are off by it, the profiles' channels disagree
    /// without it and agree with it (those compensated on the review's pairs had no r₀ without it);
    /// where it is a misreading, it leaves the agreeing profiles fewer.
    static func scaleKeepsEdges(unscaled: IlluminationEdgeRatio.Result?, scaled: IlluminationEdgeRatio.Result?) -> Bool {
        (scaled?.sampleCount ?? 0) >= (unscaled?.sampleCount ?? 0)
    }

    /// Whether a measured channel scale is applied: some channel off green's by more than
    /// `channelScaleLimit` and by more than four of its standard errors. Raw-linear frames have
    /// k = 1; on the hard fixtures' 90 conditions (raw, bilinear and Malvar, both devices) k was
    /// measured in 29 and stayed within 3.0 % of 1 (two ambient lights at 300 lux; the median
    /// 0.3 %), and was applied in none.
    static func channelScaleIsSignificant(_ k: IlluminationEdgeRatio.ChannelScale) -> Bool {
        (0..<3).contains { c in
            let offset = abs(log(k.factor[c]))
            return offset > log(1 + channelScaleLimit) && offset > 4 * k.relativeStandardError[c]
        }
    }

    /// Whether a coarse channel scale (`IlluminationEdgeRatio.coarseChannelScaleProfileError`) is
    /// applied where no precise one was measured: some channel off green's by more than
    /// `coarseChannelScaleLimit` and four of its standard errors. Measured before the profiles'
    /// bends were required to be strong (`IlluminationEdgeRatio.coarseChannelScaleBend`): on the
    /// review's pairs whose channels agree it read 0.98–1.14 (the selection's bias in weak ambient
    /// light; up to 1.29 on the hard fixtures' demosaiced 50 lux pairs, whose ambient light is weak
    /// in red); with multipliers (1.5, 1, 0.7) and (2, 1, 1.5) between the frames 0.67–0.76 /
    /// 1.41–1.50 and 0.49–0.57 / 0.65–0.70 (truth 0.667 / 1.429 and 0.5 / 0.667).
    ///
    /// The coarse profiles' bias is told from a real difference by what the scale does to them:
    /// where the channels are off by k, dividing each channel's g by k makes most profiles whose
    /// channels disagreed agree (the agreeing share rose by 0.22–0.96 on the review's pairs);
    /// where k is the scattered bias of a channel weak in the ambient light it barely moves (≤ 0.054
    /// on the 90 hard conditions). Both are required: k grossly off, and a rise of at least
    /// `coarseChannelAgreementGain`. A bias that is consistent is not told apart this way (under
    /// a sodium lamp, blue's g read 49 times green's on every profile of noise, and the scale
    /// "explained" them all): that is what the bend requirement keeps out.
    static func coarseChannelScaleIsGross(_ k: IlluminationEdgeRatio.ChannelScale) -> Bool {
        let off = (0..<3).contains { c in
            let offset = abs(log(k.factor[c]))
            return offset > log(1 + coarseChannelScaleLimit) && offset > 4 * k.relativeStandardError[c]
        }
        return off && k.agreeingFractionScaled - k.agreeingFraction >= coarseChannelAgreementGain
    }

    /// The rise of the agreeing share that a coarse channel scale must bring (see `coarseChannelScaleIsGross`).
    public static let coarseChannelAgreementGain = 0.15

    /// The smallest relative coarse channel scale applied (25 %): above the coarse profiles' bias.
    public static let coarseChannelScaleLimit = 0.25

    /// How far the edges' r₀ must be from the r̄ the banding was fitted with (at first the edges' r₀
    /// on the unbanded pair) for it to be fitted again with r₀: the changes the banding fit reads
    /// keep (r₀ − r̄)·ΔA/A of the ambient light's own structure, and A changes by at most 3 % over a
    /// span there (`RowBandingFit.collect`), so within 1 % of r₀ that is below 0.03 % of r.
    static let bandingRefitOffset = 0.01
    /// Most refits of the banding (`bandingRefitOffset`).
    static let bandingRefits = 3

    /// The smallest relative channel scale applied (3 %): below it a white balance difference
    /// between the frames is not told from the edges' own small biases (up to 3.0 % on the hard
    /// fixtures). Auto white balance on frames under different light differs by 10–50 %.
    public static let channelScaleLimit = 0.03
}

extension AmbientRatioEstimate {
    /// EXIF and the edges agree when they differ by at most this many standard deviations of their
    /// difference: the two-sided 99 % level of a normal distribution (the level of stage 4a's other
    /// agreement test, the channels' χ² in `IlluminationEdgeRatio`).
    static let compatibilityLimit = 2.576

    /// `r₀` from EXIF (`1 ± metadataUncertainty`) and the edges (`edgeRatio ± edgeStandardError`),
    /// two independent measurements: their inverse-variance weighted mean (e.g. Taylor, An
    /// Introduction to Error Analysis, 2nd ed. 1997, §7.2), its relative standard uncertainty and the
    /// edges' weight. Written in variances, so that an exact EXIF (uncertainty 0) keeps all the weight
    /// and exact edges take it all. A weighted mean is only meaningful for measurements that agree:
    /// where the two differ by more than `compatibilityLimit` standard deviations of their difference
    /// (one of them is off by more than it says: an EXIF error far out in its tail, or edges
    /// misled), the more precise one is taken alone (weight 1 or 0), as a choice between them. EXIF
    /// taken against edges that contradict it is a choice the data did not confirm: its uncertainty is
    /// then at least the discrepancy (as `--exposure-ratio metadata` counts it), so the confidence
    /// falls wherever the ambient light matters (a 10 lux render with the ambient exposure 0.8× its
    /// tags: edges 1.30 ± 0.06 for a true 1.25, EXIF's 1 taken at its ±4 %). An EXIF stated exact
    /// (uncertainty 0) is taken as stated.
    static func combined(metadataUncertainty: Double, edgeRatio: Double,
                         edgeStandardError: Double) -> (ratio: Double, relativeUncertainty: Double, edgeWeight: Double) {
        let exifVariance = metadataUncertainty * metadataUncertainty, edgeVariance = edgeStandardError * edgeStandardError
        let total = exifVariance + edgeVariance
        guard total > 0 else { return (1, 0, 0) }
        if abs(edgeRatio - 1) > compatibilityLimit * total.squareRoot() {
            return edgeVariance < exifVariance ? (edgeRatio, edgeStandardError / edgeRatio, 1)
                : (1, metadataUncertainty > 0 ? max(metadataUncertainty, abs(edgeRatio - 1)) : 0, 0)
        }
        let weight = exifVariance / total, ratio = 1 + weight * (edgeRatio - 1)
        return (ratio, (exifVariance * edgeVariance / total).squareRoot() / ratio, weight)
    }

    /// Mean variance, per axis in pixels², of the bilinear resampling of the ambient frame: at
    /// fractional position t a 2-tap kernel (1 − t, t) has variance t(1 − t). Averaged over a 32×32
    /// grid of flash pixel centres mapped through `registration` (as `DarkRoomEstimate` maps them).
    static func interpolationVariance(_ registration: RegistrationResult, width: Int, height: Int) -> SIMD2<Double> {
        var sum = SIMD2<Double>(), n = 0.0
        for j in 0..<32 {
            for i in 0..<32 {
                let x = Double((2 * i + 1) * width / 64) + 0.5, y = Double((2 * j + 1) * height / 64) + 0.5
                let d = registration.displacement(atX: x, y: y)
                let t = SIMD2(x + d.dx - 0.5, y + d.dy - 0.5)
                let f = t - t.rounded(.down)
                sum += f * (1 - f); n += 1
            }
        }
        return sum / n
    }
}

/// One flicker banding component of `r(y)`: `a·cos(2πνt) + b·sin(2πνt)`, `t = (y + ½)/height`.
public struct RowBanding: Sendable, Equatable, Codable {
    /// ν, cycles per frame height.
    public var cyclesPerFrameHeight: Double
    /// a and b, in units of `r` (relative to the metadata's ratio).
    public var cosineAmplitude: Double, sineAmplitude: Double

    /// Creates a component.
    public init(cyclesPerFrameHeight: Double, cosineAmplitude: Double, sineAmplitude: Double) {
        self.cyclesPerFrameHeight = cyclesPerFrameHeight
        self.cosineAmplitude = cosineAmplitude; self.sineAmplitude = sineAmplitude
    }

    /// √(a² + b²).
    public var amplitude: Double { (cosineAmplitude * cosineAmplitude + sineAmplitude * sineAmplitude).squareRoot() }

    /// The component at frame fraction `t`.
    @inlinable public func value(atFrameFraction t: Double) -> Double {
        let p = 2 * Double.pi * cyclesPerFrameHeight * t
        return cosineAmplitude * cos(p) + sineAmplitude * sin(p)
    }
}
