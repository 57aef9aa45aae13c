import Foundation

/// The exposure ratio `r₀` of `AmbientRatioEstimate`, measured on edges of the ambient light.
///
/// With `F′ = F − Δ(y)·A` (banding removed) `= D + r₀·A`: across an edge of the ambient light alone
/// (a shadow's penumbra) the surface does not change and the flash changes only smoothly (its
/// fall-off), so along a short profile across the edge `F′(s) = α + β·s + r₀·A(s)`; across a
/// reflectance edge `F′` follows `A` with the factor `Q = F′/A` instead (Tappen, Freeman & Adelson
/// 2005 tell shading from reflectance derivatives the same way). Each pixel gives, per channel, the
/// regression coefficient g of F′ on A along an 11-pixel profile on the axis of A's larger change,
/// after removing each profile's least-squares line (which takes the fall-off's gradient) and the
/// fall-off's bend (`FlashCurvature`): a profile spans 7–10 % of the frame, over which cos θ/r²
/// bends by a few 10⁻³ of D, and that bend correlates with the even part of A's penumbra wherever a
/// profile is off the edge's centre — ±1.5 % in g, of opposite sign on the two sides of a penumbra,
/// which the selection below does not take equally (r₀ came out 0.4–1 % low on steady light at 3
/// to 12 MP). The bend is measured away from the edges, over the whole frame, rather than fitted
/// per profile (a parabola per profile would also take the even part of the penumbra's bend and
/// double the standard error). An
/// illumination edge gives the same g in every channel, even under coloured shadows; a reflectance
/// edge gives each channel its own `D_c/A_c` — the channels must agree (χ², 99 %) — and the line and
/// g must explain each channel's profile (`misfitLimit`: a penumbra over a reflectance edge reads
/// between r₀ and Q, always high). Illumination edges
/// pile up at one value below Q; the selection and robust mean are in `measure`. The standard error
/// counts neighbouring profiles as correlated (a factor 2), grows with the scatter beyond the
/// noise and has a systematic part (`systematicRelativeError`). Measured on the pair halved once more (`ReducedFramePair.halved`), with a margin.
enum IlluminationEdgeRatio {
    /// The measured ratio, and the candidate profiles' median misfit over its noise-model median
    /// (`misfitMedian`; about 1 where the camera's noise model describes the frames).
    struct Result {
        var ratio: Double, standardError: Double, sampleCount: Int, misfitScale: Double
        /// The same selection's robust location in each of `rowBandCount` bands of rows, top to
        /// bottom, without the systematic part (nil: fewer than `minimumSamples` profiles there).
        var rowBands: [RowBandLocation?] = []
        /// The same selection's robust location of each channel's own g (red, green, blue; nil: fewer
        /// than `minimumSamples` profiles measured that channel), without the systematic part.
        var channels: [TukeyBiweight.Location?] = []
        /// The channels' heterogeneity τ² (`channelHeterogeneity`; not in `standardError`: the
        /// estimate counts it in r₀'s uncertainty with the edges' weight); nil where they agree.
        var channelExcessVariance: Double? = nil
    }

    /// One profile whose channels agree on g: each channel's g and weight 1/σ² (weight 0: the channel
    /// did not measure it), the quotient Q = F′/A at its centre, its misfit, its row of the reduced
    /// pair and that row's place down the frame (0…1), and whether it runs along the row (`alongLine`:
    /// within one line of the readout, `checkedAcrossLines`). The profile's g and σ are the channels'
    /// inverse-variance mean and its error, computed once from them.
    struct EdgeProfile {
        let gs: SIMD3<Double>, weights: SIMD3<Double>, q: Double, misfit: Double, row: Int, t: Double
        var alongLine = true
        /// Whether the ambient frame's three channels change in proportion along the profile
        /// (`ambientChangesInProportion`), as across the edge of one light's shadow on one material.
        var ambientInProportion = true
        /// The channels' inverse-variance mean, its standard error and the number of channels measured.
        let g: Double, sigma: Double, channelCount: Int

        /// A profile centred on `row` of `rowCount` rows.
        init(gs: SIMD3<Double>, weights: SIMD3<Double>, q: Double, misfit: Double, row: Int, of rowCount: Int, alongLine: Bool = true,
             ambientInProportion: Bool = true) {
            self.gs = gs; self.weights = weights; self.q = q; self.misfit = misfit; self.alongLine = alongLine
            self.ambientInProportion = ambientInProportion
            self.row = row; t = (Double(row) + 0.5) / Double(rowCount)
            var sw = 0.0, swg = 0.0, count = 0
            for c in 0..<3 where weights[c] > 0 { sw += weights[c]; swg += weights[c] * gs[c]; count += 1 }
            g = swg / sw; sigma = 1 / sw.squareRoot(); channelCount = count
        }
    }

    /// Bands of rows in which `Result.rowBands` measures r₀ again (`AmbientRatioEstimate.rowBandExcess`).
    static let rowBandCount = 4

    /// One band's robust location and the number of distinct rows of the reduced pair its profiles
    /// (those the biweight keeps) lie on: what the band says about its rows' ambient light rests on
    /// that many rows, however many profiles each holds (`rowBandLocation`).
    struct RowBandLocation {
        var location: TukeyBiweight.Location
        var rowCount: Int
        /// The band's r₀.
        var centre: Double { location.centre }
        /// Its standard error.
        var standardError: Double { location.standardError }
    }

    /// The band's `RowBandLocation` from its profiles: Tukey's biweight (`robustLocation`), its
    /// standard error at least the one the rows' scatter gives (the profiles clustered by row: Liang
    /// & Zeger's sandwich, Biometrika 73(1), 1986, with the factor G/(G − 1) for G rows). Profiles on
    /// one row share its ambient light, and those along one edge share that edge's penumbra: at
    /// 1200 × 800 a shadow running along the top row of patches gave 58 profiles on three rows
    /// reading 1.195 against r₀ = 1.085, the rows right to 0.3 %: one edge, not the rows.
    static func rowBandLocation(_ profiles: [EdgeProfile]) -> RowBandLocation? {
        guard var l = robustLocation(profiles.map { ($0.g, $0.sigma) }) else { return nil }
        var scoreByRow: [Int: Double] = [:], sw = 0.0
        for p in profiles {
            guard let w = TukeyBiweight.locationWeight(value: p.g, sigma: p.sigma, centre: l.centre) else { continue }
            sw += w
            scoreByRow[p.row, default: 0] += w * (p.g - l.centre)
        }
        let rows = scoreByRow.count
        if rows >= 2 && sw > 0 {
            let squares = scoreByRow.values.reduce(0) { $0 + $1 * $1 }
            let clustered = (squares / (sw * sw) * Double(rows) / Double(rows - 1)).squareRoot()
            l.standardError = max(l.standardError, clustered)
        }
        return RowBandLocation(location: l, rowCount: rows)
    }

    /// What `measure` found: the ratio within `range` (nil: too few profiles), and, where the
    /// illumination edges' robust location lies beyond the range, that location (`BeyondRange`);
    /// and the channels' relative scale on the illumination edges (`ChannelScale`; nil: too few).
    /// `coarseChannelScale`: the same from profiles up to `coarseChannelScaleProfileError` (nil where `channelScale` is measured).
    /// `misfitScale`: the profiles' median misfit over its noise-model median (`Result.misfitScale`),
    /// also where only edges beyond the range were found (nil: no profile).
    /// `bordersBeyondRange`: the profiles beyond the range, read as illumination edges by their own g,
    /// that were left out of `beyondRange` because their ambient channels did not change in
    /// proportion (borders between materials).
    struct Measurement { var result: Result?, beyondRange: BeyondRange?, channelScale: ChannelScale? = nil,
                         coarseChannelScale: ChannelScale? = nil, channelAgreement: ChannelAgreement? = nil,
                         misfitScale: Double? = nil, lines: LineOrientation? = nil, bordersBeyondRange = 0 }

    /// r₀ from the profiles that run along the lines of the readout (the pair's rows: within one line,
    /// each frame's exposure is one) and from those across them, and whether the latter were left out
    /// (`checkedAcrossLines`); nil where no profile was measured.
    struct LineOrientation: Equatable {
        var along: Double?, across: Double?
        /// The profiles each location rests on (0: none).
        var alongCount = 0, acrossCount = 0
        /// How far apart they are, in their standard errors (nil: one is missing).
        var separation: Double?
        /// Whether the profiles across the lines were left out, reading r₀ unlike those along them.
        var acrossRefused: Bool
        /// Whether the profiles across the lines measured r₀ with none along them to check it.
        var unchecked: Bool { along == nil && across != nil }
    }

    /// The most the profiles across the lines may read r₀ apart from those along them, in standard
    /// errors (their own: the systematic part, which both share, left out), before they are left out
    /// (`checkedAcrossLines`).
    static let acrossLineSeparationLimit = 4.0

    /// How many times as many profiles across the lines as along them (on the shared rows) show that
    /// stripes, not a scene's edges, make them (`checkedAcrossLines`).
    static let acrossLineDominance = 4.0

    /// How many of the profiles that read as illumination edges (`ThreeChannelProfile.readsAsIlluminationEdge`:
    /// green's g far below the summed quotient q, within `plausibleRatios`, red's and blue's g not
    /// both at their own Q; each channel's g explaining its profile) have all three channels agree
    /// on one g (the channels' χ², 99 %), green's g (Tukey's biweight) and each channel's g over
    /// green's (Tukey's biweight of the log), red and blue (nil: too few). Where the ambient light in
    /// the flash frame is the ambient frame's, most do: 0.93–0.99 on the committed fixtures and
    /// 0.70–0.99 on the 90 hard conditions (0.54–0.99 and 0.61–0.99 before session 36, when
    /// reflectance edges green barely sees were counted), the rest noise and mixed profiles. Where the
    /// ambient light changed colour between the frames, each channel reads its own ratio: 0.05 with an
    /// 800 lux 3000 K flash frame beside a 200 lux 6500 K ambient frame, 0.39 with the blue LED
    /// spot's flash frame beside the 4000 K ambient frame (0.22 before session 36; the change is in
    /// the spot's half of the frame). Not told apart: under a narrow blue LED's light the Nikon's
    /// profiles agree under 0.35 with no change of colour, and their channels read apart (findings,
    /// sessions 36 and 37: patch borders pass the edge test there, where few shadow edges do): read
    /// as one, with low confidence.
    struct ChannelAgreement: Equatable {
        var profileCount: Int, agreeingFraction: Double
        var green: Double?, redOverGreen: Double?, blueOverGreen: Double?
        /// The standard errors of log(`green`), log(`redOverGreen`) and log(`blueOverGreen`), each
        /// widened by the profiles' misfit as r₀'s is (`misfitInflation`; nil with their location).
        var greenLogError: Double? = nil, redOverGreenLogError: Double? = nil, blueOverGreenLogError: Double? = nil

        /// Whether the edges read the ambient light apart from `ratio` (the one subtracted, r₀ ×
        /// EXIF's) in a way a colour change does: green's ratio, or red's or blue's over green's,
        /// more than `colourShiftSignificance` standard errors from `ratio` and from 1, or not
        /// measured (then nothing says they agree). Profiles whose channels disagree with no common
        /// shift are scattered by their own misfit: a 25 px diagonal hand shake left 45 % of them
        /// agreeing with red and blue at 0.998 and 0.999 of green (0.1 standard errors), where the
        /// colour changes of the test pairs read 4–54. The errors carry the profiles' misfit as r₀'s
        /// does (Birge's ratio). Not told apart: shakes of 20–40 px leave profiles whose weak
        /// channel's g is biased by 40–130 %, far beyond those errors, and such pairs read as a
        /// change (a review's 96 shaken renders: 10 do, centre-weighted confidence 0.007–0.79 →
        /// 0.002–0.57, all `fallback` before and after, colours as accurate as before; findings,
        /// session 37).
        func readsApart(from ratio: Double) -> Bool {
            func apart(_ k: Double?, _ error: Double?) -> Bool {
                guard let k, let error, k > 0 else { return true }
                return abs(log(k)) > IlluminationEdgeRatio.colourShiftSignificance * error
            }
            return apart(green.map { $0 / ratio }, greenLogError) || apart(redOverGreen, redOverGreenLogError)
                || apart(blueOverGreen, blueOverGreenLogError)
        }
    }

    /// How many standard errors apart green's ratio from the one subtracted, or red's or blue's
    /// from green's, must lie for the edges to read a colour change
    /// (`ChannelAgreement.readsApart(from:)`): 3.
    static let colourShiftSignificance = 3.0

    /// `ChannelAgreement` of `profiles` (nil: fewer than `minimumSamples`); `misfitScale` widens the
    /// locations' errors (`misfitInflation`).
    static func channelAgreement(_ profiles: [ThreeChannelProfile], misfitScale: Double) -> ChannelAgreement? {
        let edges = profiles.filter { $0.readsAsIlluminationEdge(within: plausibleRatios) }
        guard edges.count >= minimumSamples else { return nil }
        let agreeing = edges.filter { $0.channelsAgree(scaledBy: SIMD3(1, 1, 1)) }.count
        let green = robustLocation(edges.map { ($0.g.y, $0.sigma.y) })
        let red = robustLocation(edges.map { $0.logOverGreen(0) }), blue = robustLocation(edges.map { $0.logOverGreen(2) })
        func error(_ l: TukeyBiweight.Location?) -> Double? {
            l.map { $0.standardError * misfitInflation(misfitScale: misfitScale, scatterInflation: $0.scatterInflation) }
        }
        return ChannelAgreement(profileCount: edges.count, agreeingFraction: Double(agreeing) / Double(edges.count),
                                green: green?.centre, redOverGreen: red.map { exp($0.centre) }, blueOverGreen: blue.map { exp($0.centre) },
                                greenLogError: green.flatMap { g in g.centre > 0 ? error(g).map { $0 / g.centre } : nil },
                                redOverGreenLogError: error(red), blueOverGreenLogError: error(blue))
    }

    /// Across an edge of the ambient light every channel's g is r₀ — for raw-linear frames, whose
    /// channels the two exposures scale alike. Frames a raw converter developed with other white
    /// balance multipliers (auto white balance per image) or another colour matrix each do not: the
    /// edges then vanish at `k_c·r₀` in channel c, and the channels' agreement test discards them as
    /// reflectance edges. `factor` is `k` (green 1): per channel, Tukey's biweight of log(g_c/g_green)
    /// over the profiles that read as illumination edges by their green g (far below Q, within
    /// `range`) and that each channel's own g explains (`misfitLimit`), whatever the channels'
    /// agreement; `relativeStandardError` its standard error (green 0).
    /// `agreeingFraction`: the share of those profiles whose three g agree (the channels' χ², 99 %,
    /// as for the ratio): about 1 where the frames' channels are on one scale, whatever the biases
    /// of k; small where they are not.
    struct ChannelScale: Equatable {
        var factor: SIMD3<Double>, relativeStandardError: SIMD3<Double>, sampleCount: Int, agreeingFraction: Double = 1
        /// The same share with each channel's g divided by its `factor`: higher than `agreeingFraction`
        /// by far where the channels are off by that factor, not where it is the selection's bias.
        var agreeingFractionScaled: Double = 1
    }

    /// Where the profiles that read as illumination edges (the channels agree, the model explains
    /// the profile, and g is far below the profile's Q = F′/A, where a reflectance edge would sit),
    /// within `range` and beyond it, have their robust location (Tukey's biweight) beyond `range` by
    /// more than three standard errors, with at least `minimumSamples` of them beyond: EXIF is off by
    /// more than the search allows (e.g. the tags of another capture). `ratio` is that location,
    /// `sampleCount` the profiles beyond the range.
    struct BeyondRange: Equatable {
        var ratio: Double, sampleCount: Int
        /// Whether the ratio is that of shadow edges the flash frame holds far weaker (`vanishedEdges`:
        /// the ambient light dimmed between the frames), not of edges within `plausibleRatios`.
        var fromVanishedEdges = false
    }

    /// Whether the ambient frame's channels change in proportion along a profile: each measured
    /// channel's relative change (`relative`: three channels' detrended A over A at the centre, one
    /// after the other; `variance`: each one's noise variance) follows the reference channel's (green,
    /// or the first measured where green was not) within `ambientProportionTolerance` of the
    /// reference's change, after the noise's share is taken off at its 99 % point (χ² with n − 2
    /// degrees of freedom per channel compared, `chiSquare99`): a profile is a border only where it
    /// departs beyond the tolerance whatever its noise. (Taken off at its mean, as before session 50,
    /// a quarter of the noisiest shadow edges failed.) `measured`: the channels' weights in the
    /// profile's fit (0: the ambient light's bend in that channel was too weak to fit, and its
    /// relative change is noise). Across one light's shadow on one material every channel is the
    /// lit value times one shading; across a border between materials (an object that moved
    /// between the frames, or two surfaces whose g agree by chance) the channels change by their own
    /// reflectances' ratios.
    static func ambientChangesInProportion(_ relative: [Double], variance: SIMD3<Double>,
                                           measured: SIMD3<Double> = SIMD3(1, 1, 1)) -> Bool {
        let n = relative.count / 3
        let reference = measured.y > 0 ? 1 : (measured.x > 0 ? 0 : 2)
        var scale = 0.0, mismatch = 0.0, noise = 0.0, compared = 0
        for k in 0..<n { scale += relative[reference * n + k] * relative[reference * n + k] }
        for c in 0..<3 where c != reference && measured[c] > 0 {
            compared += 1
            noise += variance[c] + variance[reference]
            for k in 0..<n {
                let d = relative[c * n + k] - relative[reference * n + k]
                mismatch += d * d
            }
        }
        guard compared > 0 else { return false }
        let degrees = Double((n - 2) * compared)
        mismatch -= Double(n - 2) * noise * chiSquare99(degreesOfFreedom: degrees) / degrees
        return mismatch < ambientProportionTolerance * ambientProportionTolerance * Double(compared) * scale
    }

    /// The 99 % point of χ² with `k` degrees of freedom, by Wilson & Hilferty's cube-root normal
    /// approximation (PNAS 17, 1931): 21.7 for 9 and 34.8 for 18 (tables: 21.67, 34.81).
    static func chiSquare99(degreesOfFreedom k: Double) -> Double {
        let v = 2 / (9 * k)
        return k * pow(1 - v + 2.326_348 * v.squareRoot(), 3)
    }

    /// How far a channel's relative change along a profile may depart from the reference channel's
    /// (green's, `ambientChangesInProportion`), as a share of the reference's (RMS over the profile):
    /// 0.2. A moved red square's border on a grey ground departs by more than its whole change; a
    /// shadow's penumbra under one light by its blur and noise.
    static let ambientProportionTolerance = 0.2

    /// Where no profile measured r₀ within `plausibleRatios` but at least `minimumSamples` read as
    /// illumination edges with g below them, and their robust location lies above `dimmestRatio` by
    /// more than three standard errors: the flash frame holds
    /// the ambient frame's shadow edges far weaker, so the ambient light in it is far dimmer than
    /// the tags predict (a lamp dimmed between the frames, or a tag far off), and that location is
    /// `BeyondRange`'s ratio.
    /// g near 0 is left out of `plausibleRatios` because an object that moved leaves such edges: here
    /// only profiles whose ambient channels change in proportion count (`ambientInProportion`: a
    /// shadow's edge, not a border between chromatic materials), their g must be above 0 beyond
    /// doubt (`dimmestRatio`), and where the scene has other edges they measure r₀ and this reads
    /// nothing. Not read, so: a lamp switched off (or dimmed by more than six stops) between the
    /// frames where nothing else measures the ratio. A 10 lux flash frame beside a
    /// 200 lux ambient frame of the committed conditions measured nothing and took EXIF's ratio, 20×
    /// too large, at ±4 %: 11 ΔE00 off, patches up to 28 ΔE00 off in chroma, two of them 3.7 and 6.0 at
    /// confidence 0.82–0.84.
    static func vanishedEdges(_ explained: [EdgeProfile]) -> BeyondRange? {
        let vanished = explained.filter {
            $0.ambientInProportion && readsAsIlluminationEdge(g: $0.g, sigma: $0.sigma, q: $0.q) && $0.g < plausibleRatios.lowerBound
        }
        guard vanished.count >= minimumSamples, let l = robustLocation(vanished.map { ($0.g, $0.sigma) }),
              l.centre - 3 * l.standardError > dimmestRatio
        else { return nil }
        return BeyondRange(ratio: l.centre, sampleCount: vanished.count, fromVanishedEdges: true)
    }

    /// The least ratio (× EXIF's) `vanishedEdges` reads as the ambient light dimmed: six stops below
    /// EXIF's (its profiles lie below two, `plausibleRatios`). Edges that vanish entirely (g near 0) are what an object that moved leaves — a large
    /// square sliding over the chart's neutral row in a scene without shadows read 0.0002–0.003 on
    /// 270 profiles whose ambient channels change in proportion — and what a lamp switched off
    /// leaves: the two are not told apart, and nothing is read. A positive g at every such edge
    /// says the flash frame holds the ambient frame's shadows, weaker: the same light, dimmed.
    static let dimmestRatio = 1.0 / 64

    /// The r₀ that `BeyondRange` considers: EXIF overstating the ambient light's share by at most
    /// two stops (g near 0 is an edge the ambient frame has and the flash frame lacks: an object
    /// that moved), understating it by up to ten stops (a review typed the ambient ISO as 1000 for
    /// 100 and got constantColor 0.93 at 8.4 ΔE00 under the former two-stop bound).
    static let plausibleRatios = 0.25...1024.0

    /// The part of r₀'s relative error that more profiles do not average away (what the bend and
    /// blur models leave), added to the statistical standard error: at 3 MP, where that is 0.08–0.09 %,
    /// r₀ came out −0.17 % off on steady light and −0.01 to −0.27 % (mean −0.14 %) over five
    /// flickering renders (`AmbientRatioTests`), the row error then 2.0 stated σ RMS.
    static let systematicRelativeError = 0.002

    /// Fewest profiles in the final selection for a measurement.
    static let minimumSamples = 40
    /// The search range of r₀ (EXIF is not off by more than ±40 %, `AmbientRatioEstimate.searchedRelativeRange`).
    static let range = (1 - AmbientRatioEstimate.searchedRelativeRange)...(1 + AmbientRatioEstimate.searchedRelativeRange)

    /// How many of its own standard errors a profile's g may lie beyond `range` and still measure r₀
    /// within it (`withinRange`): 3.
    static let rangeMarginSigmas = 3.0

    /// Whether a profile measures r₀ within `range`: its g within the range widened by
    /// `rangeMarginSigmas` of its standard error. The range bounds r₀, not each profile's noisy g:
    /// profiles cut at the range itself left the noisy ones' distribution truncated about EXIF's 1,
    /// and their location was pulled toward it — at 10 lux (σ 0.3–0.45 per profile) EXIF's ratio
    /// 25 % high or low read 0.92–0.96 and 1.01–1.02 for 0.80 and 1.25 (noise-free renders 0.79 and
    /// 1.22), a shrinkage to a third of the deviation that no stated error covered, and the truncated
    /// scatter made the profiles look twice as precise as their σ (docs/real-capture-findings.md,
    /// session 45). A precise profile is cut where it was.
    static func withinRange(_ profile: EdgeProfile) -> Bool {
        let margin = rangeMarginSigmas * profile.sigma
        return profile.g >= range.lowerBound - margin && profile.g <= range.upperBound + margin
    }

    /// Removes the least-squares line from a profile sampled at s = −reach…reach, in place.
    static func detrended(_ v: inout [Double]) {
        let n = v.count, reach = n / 2
        var mean = 0.0, slope = 0.0, ss = 0.0
        for i in 0..<n { let t = Double(i - reach); mean += v[i]; slope += t * v[i]; ss += t * t }
        mean /= Double(n); slope /= ss
        for i in 0..<n { v[i] -= mean + slope * Double(i - reach) }
    }

    /// One channel's coefficient g of F′ on A along a profile whose line is removed (`detrended`), its
    /// standard error, its misfit `Σ(F̃ − g·Ã)² / (σ²_F + g²σ²_A)` and its bend `ΣÃ² / ((n − 2)·σ²_A)`
    /// (A's bend over the part of it its noise adds); nil when A's bend is too weak
    /// against its noise (`level`: A at the profile's centre). `flashVariance` and `ambientVariance`
    /// are one sample's noise variances.
    ///
    /// Noise in A inflates ΣÃ² by (n − 2)·σ²_A (two degrees of freedom go to the line) and would
    /// pull g toward 0 (errors in variables): it is subtracted, and only profiles whose bend is at
    /// least ten times that noise are used. Across an illumination edge alone `F̃ − g·Ã` is noise, so
    /// the misfit is χ² with n − 3 degrees of freedom (the line and g).
    static func channelFit(flash fp: [Double], ambient ap: [Double], flashVariance vf: Double, ambientVariance va: Double,
                           level: Double) -> (g: Double, sigma: Double, misfit: Double, bend: Double)? {
        var aa = 0.0, fa = 0.0
        for i in ap.indices { aa += ap[i] * ap[i]; fa += fp[i] * ap[i] }
        let noise = Double(ap.count - 2) * va
        guard aa > 10 * noise, aa > 1e-4 * level * level else { return nil }
        let signal = aa - noise
        let g = fa / signal
        let sigma = max(1e-4, ((vf + g * g * va) / signal).squareRoot())
        var residual = 0.0
        for i in ap.indices { let e = fp[i] - g * ap[i]; residual += e * e }
        return (g, sigma, residual / (vf + g * g * va), aa / noise)
    }

    /// The 99 % point of χ² with `channels`·(n − 3) degrees of freedom (n = 11: 8 per channel), the
    /// most misfit a profile's channels may show together. A profile that crosses a reflectance edge
    /// as well as the penumbra (a shadow over a patch's border) leaves the reflectance step in
    /// `F̃ − g·Ã`, weighted by Q − g, while its g lies between r₀ and Q: always above r₀. On the
    /// synthetic chart, whose patch rows run along the shadow's upper edge, the profiles with the
    /// larger misfit read r₀ higher (vertical ones 1.6 % at χ²/dof 1–1.5, 9 % beyond 1.5, against
    /// 0.4 % below 1, at 50 lux); with the limit r₀'s mean error over 36 raw pairs at 50 lux went from
    /// +0.83 % to +0.68 %, the mixed profiles the noise hides stay. Selecting on the misfit barely
    /// moves a clean profile's g (least-squares residuals are independent of the coefficient under
    /// Gaussian noise; A's noise couples them a little).
    static func misfitLimit(channels: Int) -> Double { channels == 3 ? 42.980 : 32.000 }
    /// The median of the same χ² distribution.
    static func misfitMedian(channels: Int) -> Double { channels == 3 ? 23.337 : 15.338 }

    /// `blur`: per axis, a of the 3-tap blur `[a, 1 − 2a, a]` (in `p`'s pixels) by which `A` is
    /// blurrier than `F′` (`AmbientRatioEstimate.estimate`, `RelativeBlur`); F′ is blurred as much before the fit,
    /// or the bend of A's penumbrae would look smaller than F′'s and r₀ come out high (≈ 1 % at
    /// half-pixel shifts, 1.4 % under a 4-pixel shake at 600 × 400).
    /// `banded`: `p.bandingFree` of the banding found.
    static func measure(_ p: ReducedFramePair, banded: (channels: [[Double]], sum: [Double]), blur: SIMD2<Double>) -> Measurement {
        let w = p.width, h = p.height
        guard w >= 5, h >= 5 else { return Measurement(result: nil, beyondRange: nil) }
        var candidates: [EdgeProfile] = [], beyond: [EdgeProfile] = []
        var threeChannel: [ThreeChannelProfile] = []
        var fPrime = banded.channels
        let fPrimeSum = banded.sum
        // Blur F′ by [a, 1 − 2a, a] per axis.
        let ax = min(0.25, max(0, blur.x)), ay = min(0.25, max(0, blur.y))
        for c in 0..<3 {
            var f = fPrime[c]
            for y in 0..<h {
                for x in 1..<(w - 1) {
                    let j = y * w + x
                    f[j] = ax * fPrime[c][j - 1] + (1 - 2 * ax) * fPrime[c][j] + ax * fPrime[c][j + 1]
                }
            }
            var g = f
            for y in 1..<(h - 1) {
                for x in 0..<w {
                    let j = y * w + x
                    g[j] = ay * f[j - w] + (1 - 2 * ay) * f[j] + ay * f[j + w]
                }
            }
            fPrime[c] = g
        }
        // Profiles of 2·reach + 1 pixels, a margin of two more: the registered ambient frame's
        // border is interpolated.
        let reach = 5, margin = reach + 2
        var fp = [Double](repeating: 0, count: 2 * reach + 1), ap = fp
        // Each channel's detrended A along the profile over A at its centre, and that ratio's noise variance.
        var relativeAmbient = [Double](repeating: 0, count: 3 * (2 * reach + 1)), relativeAmbientVariance = SIMD3<Double>()
        let curvature = FlashCurvature.measure(p, fPrime: fPrime, reach: reach)
        let meanSquare = Double(reach * (reach + 1)) / 3
        for y in margin..<max(margin, h - margin) {
            for x in margin..<max(margin, w - margin) {
                let j = y * w + x
                guard p.valid[j], p.ambient[j] > 0 else { continue }
                // The profile runs along the axis of the larger ambient change.
                let horizontal = abs(p.ambient[j + 1] - p.ambient[j - 1]) >= abs(p.ambient[j + w] - p.ambient[j - w])
                let stride = horizontal ? 1 : w
                let bendFactor = curvature?.relativeBend(x: x, y: y, horizontal: horizontal) ?? 0
                var allValid = true
                for k in -reach...reach where !p.valid[j + k * stride] { allValid = false }
                guard allValid else { continue }
                // Per channel: fit F′(s) = α + β·s + g·A(s) along the profile. The line α + β·s takes
                // the flash's smooth fall-off (∇D ≠ 0 even across a shadow edge); g is carried by
                // the part of A that is not a line (the penumbra's bend).
                var gs = SIMD3<Double>(), ws = SIMD3<Double>(), used = 0, misfit = 0.0, bends = SIMD3<Double>()
                for c in 0..<3 {
                    let a = p.ambientChannels[c], f = fPrime[c]
                    // D's bend along the profile: D_j·b·(s² − ⟨s²⟩), D_j from EXIF's r = 1 (its error
                    // changes the bend's correction only in the second order).
                    let bend = (f[j] - a[j]) * bendFactor
                    for k in -reach...reach {
                        ap[k + reach] = a[j + k * stride]
                        fp[k + reach] = f[j + k * stride] - bend * (Double(k * k) - meanSquare)
                    }
                    Self.detrended(&ap); Self.detrended(&fp)
                    // A's relative change along the profile and its noise (`ambientChangesInProportion`).
                    for k in ap.indices { relativeAmbient[c * ap.count + k] = ap[k] / a[j] }
                    relativeAmbientVariance[c] = p.ambientChannelVariance[c][j] / (a[j] * a[j])
                    guard let fit = Self.channelFit(flash: fp, ambient: ap, flashVariance: p.flashChannelVariance[c][j],
                                                    ambientVariance: p.ambientChannelVariance[c][j], level: a[j]) else { continue }
                    gs[c] = fit.g; ws[c] = 1 / (fit.sigma * fit.sigma); used += 1
                    bends[c] = fit.bend
                    misfit += fit.misfit
                }
                guard used >= 2 else { continue }
                // Across an illumination edge every channel gives the same g (= r₀); across a
                // reflectance edge each its own D_c/A_c. χ² of the channels' agreement, 99 % level.
                let chi = Self.channelChiSquare(gs, weights: ws)
                let q = fPrimeSum[j] / p.ambient[j]
                let inProportion = Self.ambientChangesInProportion(relativeAmbient, variance: relativeAmbientVariance, measured: ws)
                if used == 3 {
                    let channelQ = SIMD3(fPrime[0][j] / p.ambientChannels[0][j], fPrime[1][j] / p.ambientChannels[1][j],
                                         fPrime[2][j] / p.ambientChannels[2][j])
                    threeChannel.append(ThreeChannelProfile(g: gs, sigma: 1 / (ws.squareRoot()), q: q, channelQ: channelQ, misfit: misfit,
                                                            bend: bends, alongLine: horizontal, ambientInProportion: inProportion))
                }
                guard chi < Self.channelAgreementLimit(channels: used) else { continue }
                let profile = EdgeProfile(gs: gs, weights: ws, q: q, misfit: misfit, row: y, of: h, alongLine: horizontal,
                                          ambientInProportion: inProportion)
                if withinRange(profile) { candidates.append(profile) } else { beyond.append(profile) }
            }
        }
        return checkedAcrossLines(candidates: candidates, beyond: beyond, threeChannel: threeChannel)
    }

    /// The measurement from the profiles (`summary`), with those across the lines of the readout left
    /// out where, on the rows that profiles along the lines also measure (within `acrossLineRowReach`
    /// rows of one), they read r₀ more than `acrossLineSeparationLimit` standard errors from those
    /// and outnumber them more than `acrossLineDominance` times.
    /// Along a line both frames' exposure is one, whatever the light did in time; across lines it
    /// differs by the rows' ambient gain, and a banding the model does not describe (PWM's square
    /// pulses against the fit's sinusoids) leaves the ambient frame's own stripes in `A`, each a step
    /// that the flash frame does not share: read as an illumination edge with g between 0 and r₀.
    /// Under 480 Hz PWM at 25 % duty through a 20 ms readout (a review's 800 lux Nikon render), 3 455
    /// such profiles read r₀ 0.72× EXIF's at ±0.3 %, `constantColor` at 5.5 ΔE00 off, against 127 along
    /// the rows reading 1.007 (truth 1.003); on steady light the two agree (1.002 and 1.000). The
    /// comparison is made on shared rows because under a slow flicker the rows' r₀ differs down the
    /// frame, and profiles along the lines that lie in one band (a spot's pool at the bottom) read
    /// that band's r₀, not the frame's. Stripes also outnumber the edges: they cross nearly every
    /// column of the rows they lie on (2 400–3 100 profiles across the rows against 66–136 along them
    /// on the PWM renders), where a scene's shadows give both orientations alike (215 and 202 on the
    /// steady render; 149–171 and 136–168 beside a blue spot under 0.8-cycle flicker, whose edges the
    /// banding model leaves 1–8 % apart, up to 17 standard errors, before its refit: there every
    /// profile counts, as before, and the bands of rows' check says the rows are off).
    static func checkedAcrossLines(candidates: [EdgeProfile], beyond: [EdgeProfile], threeChannel: [ThreeChannelProfile]) -> Measurement {
        let all = summary(candidates: candidates, beyond: beyond, threeChannel: threeChannel)
        let along = summary(candidates: candidates.filter(\.alongLine), beyond: beyond.filter(\.alongLine),
                            threeChannel: threeChannel.filter(\.alongLine))
        var alongRows = Set<Int>()
        for profile in candidates where profile.alongLine {
            for row in (profile.row - acrossLineRowReach)...(profile.row + acrossLineRowReach) { alongRows.insert(row) }
        }
        let across = summary(candidates: candidates.filter { !$0.alongLine && alongRows.contains($0.row) },
                             beyond: beyond.filter { !$0.alongLine && alongRows.contains($0.row) }, threeChannel: [])
        var lines = LineOrientation(along: along.result?.ratio, across: across.result?.ratio,
                                    alongCount: along.result?.sampleCount ?? 0, acrossCount: across.result?.sampleCount ?? 0,
                                    separation: nil, acrossRefused: false)
        guard let a = along.result, let c = across.result else {
            var m = all
            // Too few profiles along the lines to measure r₀: what the others measured is unchecked.
            if lines.along == nil, let unchecked = all.result { lines.across = unchecked.ratio; lines.acrossCount = unchecked.sampleCount }
            m.lines = lines.along == nil && lines.across == nil ? nil : lines
            return m
        }
        /// The standard error without the systematic part both share.
        func own(_ r: Result) -> Double {
            let systematic = systematicRelativeError * r.ratio
            return (max(0, r.standardError * r.standardError - systematic * systematic)).squareRoot()
        }
        let separation = abs(a.ratio - c.ratio) / max(1e-12, (own(a) * own(a) + own(c) * own(c)).squareRoot())
        lines.separation = separation
        lines.acrossRefused = separation > acrossLineSeparationLimit && Double(c.sampleCount) > acrossLineDominance * Double(a.sampleCount)
        var m = lines.acrossRefused ? along : all
        m.lines = lines
        return m
    }

    /// How many rows of the measured pair either side of a profile along the lines the profiles
    /// across them are compared on (`checkedAcrossLines`): 2, a twelfth of the 600 × 400 hard
    /// fixtures' halved pair (a slow flicker's r₀ changes little over it; a 9.6-cycle one's stripes,
    /// five such rows apart, are all sampled).
    static let acrossLineRowReach = 2

    /// The measurement from the profiles collected by `measure`.
    static func summary(candidates: [EdgeProfile], beyond: [EdgeProfile], threeChannel: [ThreeChannelProfile]) -> Measurement {
        // The profiles that the model explains (`misfitLimit`), against the noise model's scale or,
        // where the candidates' median misfit is above its noise-model median, that median's: a
        // guard for a camera profile whose noise model understates the frames' noise (a raw
        // profile on bilinear-demosaiced frames left residuals 1.5–2.8× the stated noise and would
        // have lost two thirds of the profiles; with the demosaic-calibrated profile the median is
        // 0.9–1.0 of the model's).
        // (The scale from the profiles within the range; from those beyond only where there are none.)
        var relative = (candidates.isEmpty ? beyond : candidates).map { Float($0.misfit / misfitMedian(channels: $0.channelCount)) }
        // (Without a profile whose channels agree, the three-channel profiles' median sets the scale.)
        if relative.isEmpty { relative = threeChannel.map { Float($0.misfit / misfitMedian(channels: 3)) } }
        guard !relative.isEmpty else { return Measurement(result: nil, beyondRange: nil) }
        let misfitScale = Double(relative.withUnsafeMutableBufferPointer { $0.partitionAtMedian($0.count / 2) })
        let scale = max(1, misfitScale)
        // (Only profiles whose ambient channels change in proportion, as across a shadow on one
        // material, say how the channels' ratios relate: borders between materials that pass green's
        // edge test read each channel's own D_c/A_c. Of a probe's 552 shadowless renders with the
        // tags right and the frames' light unchanged, 96 read a colour change of the ambient light
        // (a Sigma at 2700 K, 200 lux: confidence 0.000 where the colours were right; 0.72 now).)
        let explainedThreeChannel = threeChannel.filter { $0.misfit < scale * misfitLimit(channels: 3) && $0.ambientInProportion }
        let channelScale = Self.channelScale(explainedThreeChannel)
        let coarseChannelScale = channelScale == nil
            ? Self.channelScale(explainedThreeChannel, profileError: coarseChannelScaleProfileError, minimumBend: coarseChannelScaleBend) : nil
        let channelAgreement = Self.channelAgreement(explainedThreeChannel, misfitScale: misfitScale)
        let explained = candidates.filter { $0.misfit < scale * misfitLimit(channels: $0.channelCount) }
        let explainedBeyond = beyond.filter { $0.misfit < scale * misfitLimit(channels: $0.channelCount) }
        // r₀ within the range: a location beyond it is no measurement within it (profiles that reach
        // into the range by their noise alone, `withinRange`, do not make one).
        let result = selection(explained, misfitScale: misfitScale).flatMap { range.contains($0.ratio) ? $0 : nil }
        // All explained profiles, within the range and beyond, that read as illumination edges by
        // their own g (σ < 0.2·(Q − g), g < 0.6·Q: far below Q, where a reflectance edge sits) and
        // lie within `plausibleRatios` of EXIF (g near 0 is an edge of the ambient frame the flash
        // frame does not have — an object that moved — not an exposure): their robust
        // location (not truncated at the range, so noise alone leaves it inside). When it lies
        // beyond the range by more than three standard errors, EXIF is off by more than the search
        // allows. Only profiles whose ambient channels change in proportion count, as for
        // `vanishedEdges`: borders between materials whose channels' g agree by chance lie anywhere,
        // and in numbers at low light (a 10 lux 2700 K scene without shadows, EXIF right: 123 such
        // profiles put r₀ at 21.8× EXIF's, `fallback` at 0.039 where the colours were right).
        let plausible = (explained + explainedBeyond).filter {
            readsAsIlluminationEdge(g: $0.g, sigma: $0.sigma, q: $0.q) && plausibleRatios.contains($0.g)
        }
        let illuminationLike = plausible.filter(\.ambientInProportion)
        let bordersBeyond = plausible.filter { !$0.ambientInProportion && !range.contains($0.g) }.count
        var beyondRange: BeyondRange? = nil
        let beyondCount = illuminationLike.filter { !range.contains($0.g) }.count
        if beyondCount >= minimumSamples, let l = robustLocation(illuminationLike.map { ($0.g, $0.sigma) }), !range.contains(l.centre),
           min(abs(l.centre - range.lowerBound), abs(l.centre - range.upperBound)) > 3 * l.standardError {
            beyondRange = BeyondRange(ratio: l.centre, sampleCount: beyondCount)
        }
        if result == nil && beyondRange == nil { beyondRange = vanishedEdges(explained + explainedBeyond) }
        return Measurement(result: result, beyondRange: beyondRange, channelScale: channelScale, coarseChannelScale: coarseChannelScale,
                           channelAgreement: channelAgreement, misfitScale: misfitScale, bordersBeyondRange: bordersBeyond)
    }

    /// The largest relative standard error of any channel's g in a profile `channelScale` uses. A
    /// weak bend's g is biased (the noise subtracted from ΣÃ² is a model's, and the profiles are
    /// selected on a bend that noise helped): with every profile the hard fixtures' 50 lux
    /// conditions, whose ambient light is weak in one channel, measured k 5–15 % from 1.
    static let channelScaleProfileError = 0.05

    /// The same limit for the coarse measurement (`coarseChannelScale`): where the flash outweighs
    /// the ambient light, the penumbrae's bends are weak against the flash frame's noise and no
    /// profile reaches 5 % — a review's Nikon pair at 200 lux with a 700 lux flash measured no scale
    /// at all, and frames developed with multipliers (2, 1, 1.5) came out 21 ΔE00 off with
    /// confidence 0.86. Biased by the selection, but gross mismatches stand out of it.
    static let coarseChannelScaleProfileError = 0.25

    /// The least bend of the ambient profile in every channel, as a multiple of its noise's
    /// contribution (`channelFit`'s `bend`), for the coarse channel scale: 100, so that g's errors-in-variables
    /// correction (the noise subtracted from ΣÃ²) moves g by under 1 % even if the noise model were
    /// off by 100 %. Under the sodium lamp of the committed fixtures the ambient light has almost no
    /// blue: profiles whose blue bend was mostly noise read blue's g 49 times green's, consistently,
    /// and the coarse scale (3.2, 1, 49) was applied to a pair whose channels agree (48 ΔE00).
    static let coarseChannelScaleBend = 100.0

    /// One profile's three channels: g and its standard error, Q, the summed misfit and each
    /// channel's bend (`channelFit`).
    struct ThreeChannelProfile {
        var g: SIMD3<Double>, sigma: SIMD3<Double>, q: Double
        /// Each channel's own quotient `Q_c = F′_c/A_c` at the profile's centre.
        var channelQ: SIMD3<Double>
        var misfit: Double, bend: SIMD3<Double>
        /// Whether it runs along the line (`EdgeProfile.alongLine`).
        var alongLine = true
        /// Whether the ambient frame's channels change in proportion along it (`EdgeProfile.ambientInProportion`).
        var ambientInProportion = true

        /// Whether the profile reads as an illumination edge: green's g by `readsAsIlluminationEdge`
        /// within `ratios` (against the channels' summed quotient `q`), red's and blue's g positive,
        /// and not both of them reading as a reflectance edge (`readsAsReflectanceEdge`). Across a
        /// reflectance edge every channel's g is its own Q; across a step of the ambient light alone
        /// every channel's g is below its own Q (g_c = r_c, Q_c = D_c/A_c + r_c, whatever the ambient
        /// light did between the frames). Where green's step is weak (two materials of one green),
        /// green's g says little and the other two tell the edge: on a probe's scenes without a cast
        /// shadow (3000 K lamp, uniform or from the left) 880 of the 882 profiles green passed had
        /// red's g at 0.91 and blue's at 1.29 of their Q, none with agreeing channels — read as 0 %
        /// of the edges vanishing (a lamp switched, confidence 0.006) and, from the left lamp, as
        /// channel scales 2.9 and 8.4 (16 % of the confident pixels > 3 ΔE00 off). One channel at its
        /// Q is not enough: in a channel the ambient light outweighs the flash in (blue under a blue
        /// LED, Q 1.3–1.5) a shadow edge reads near its Q as well (asked of each channel alone, that
        /// test left out every shadow edge of a 460 nm LED render). g_c/Q_c does not change when a
        /// channel is scaled (frames developed unlike each other), so a channel scale does not move
        /// this test.
        func readsAsIlluminationEdge(within ratios: ClosedRange<Double>) -> Bool {
            IlluminationEdgeRatio.readsAsIlluminationEdge(g: g.y, sigma: sigma.y, q: q) && ratios.contains(g.y) && g.x > 0 && g.z > 0
                && !(readsAsReflectanceEdge(channel: 0) && readsAsReflectanceEdge(channel: 2))
        }

        /// Whether channel `c`'s g lies above `reflectanceFraction` of its own Q by more than two
        /// standard errors. A channel whose Q is not a positive number has no ambient light at the
        /// centre (the black level's noise left): false.
        func readsAsReflectanceEdge(channel c: Int) -> Bool {
            let qc = channelQ[c]
            guard qc > 0, qc.isFinite else { return false }
            return !(g[c] <= IlluminationEdgeRatio.reflectanceFraction * qc + 2 * sigma[c])
        }

        /// log(g_c / g_green) and its standard error (the two relative errors in quadrature).
        func logOverGreen(_ c: Int) -> (value: Double, sigma: Double) {
            let rc = sigma[c] / g[c], rg = sigma.y / g.y
            return (log(g[c] / g.y), (rc * rc + rg * rg).squareRoot())
        }

        /// Whether the three channels' g, each divided by `k`, agree on one (χ², 99 %).
        func channelsAgree(scaledBy k: SIMD3<Double>) -> Bool {
            let scaledSigma = sigma / k
            return channelChiSquare(g / k, weights: 1 / (scaledSigma * scaledSigma)) < channelAgreementLimit(channels: 3)
        }
    }

    /// Whether a profile reads as an illumination edge by its own g: far below its Q, where a
    /// reflectance edge would sit (σ < 0.2·(Q − g), g < `reflectanceFraction`·Q).
    static func readsAsIlluminationEdge(g: Double, sigma: Double, q: Double) -> Bool {
        sigma < 0.2 * (q - g) && g < reflectanceFraction * q
    }

    /// The fraction of Q below which a profile's g reads as an illumination edge's (0.6).
    static let reflectanceFraction = 0.6

    /// The channels' χ² of agreement on one g: `Σ w_c (g_c − ḡ)²`, ḡ their weighted mean (a channel
    /// of weight 0 does not count).
    static func channelChiSquare(_ g: SIMD3<Double>, weights w: SIMD3<Double>) -> Double {
        let mean = (w * g).sum() / w.sum()
        return (w * (g - mean) * (g - mean)).sum()
    }

    /// The 99 % point of χ² with `channels` − 1 degrees of freedom: the most disagreement the
    /// channels of an illumination edge may show.
    static func channelAgreementLimit(channels: Int) -> Double { channels == 3 ? 9.21 : 6.63 }

    /// `ChannelScale` from the profiles that each channel's own g explains, each channel's g known
    /// to `profileError` (relative standard error) and each channel's ambient bend at least
    /// `minimumBend` times its noise's part.
    static func channelScale(_ profiles: [ThreeChannelProfile], profileError: Double = channelScaleProfileError,
                             minimumBend: Double = 0) -> ChannelScale? {
        let edges = profiles.filter {
            $0.readsAsIlluminationEdge(within: range) && ($0.sigma / $0.g).max() < profileError && $0.bend.min() >= minimumBend
        }
        guard edges.count >= minimumSamples else { return nil }
        var factor = SIMD3<Double>(1, 1, 1), error = SIMD3<Double>(0, 0, 0), count = edges.count
        for c in [0, 2] {
            guard let l = robustLocation(edges.map { $0.logOverGreen(c) }) else { return nil }
            factor[c] = exp(l.centre); error[c] = l.standardError; count = min(count, l.count)
        }
        func agreeing(_ k: SIMD3<Double>) -> Double { Double(edges.filter { $0.channelsAgree(scaledBy: k) }.count) / Double(edges.count) }
        return ChannelScale(factor: factor, relativeStandardError: error, sampleCount: count,
                            agreeingFraction: agreeing(SIMD3(1, 1, 1)), agreeingFractionScaled: agreeing(factor))
    }

    /// How much more the edges' r₀ is uncertain than its biweight's standard error says, where the
    /// profiles misfit their own model beyond their noise: each profile's g has the noise model's σ,
    /// and profiles whose residuals are `misfitScale` times (χ²) what that model predicts hold g to
    /// √misfitScale times that σ at best (Birge's ratio, Phys. Rev. 40, 1932). The biweight already
    /// grows its error with the scatter between profiles (`scatterInflation`); a misfit they share
    /// moves them together and does not scatter them — an ambient frame blurred by hand shake far
    /// more than `RelativeBlur` measured (a probe's 20–25 px diagonal shakes: residuals 52–184 times
    /// the noise model's, r₀ 13–15 % high at 2 % stated, 17.5–24.5 % of the confident pixels > 3
    /// ΔE00 off) — so the larger of the two factors is counted, not both.
    /// 1 where the profiles fit within their noise.
    static func misfitInflation(misfitScale: Double, scatterInflation: Double) -> Double {
        max(1, max(1, misfitScale).squareRoot() / max(1, scatterInflation))
    }

    /// The illumination cluster of `samples` (within `range`) and its robust mean.
    static func selection(_ samples: [EdgeProfile], misfitScale: Double) -> Result? {
        // Illumination edges sit at g = r₀ < Q; reflectance edges near g ≈ Q. A gradient counts
        // when its noise is small against that gap (σ < 0.2·(Q − r)) and it is nearer r than Q
        // (g < r + 0.4·(Q − r)): the selection then cuts the illumination cluster no closer than
        // 2σ from its centre. Starting from EXIF (r = 1): a weighted median, then Tukey's biweight
        // (Beaton & Tukey 1974) around it, re-selecting with each new r.
        var r = 1.0
        var result: Result? = nil
        var final = samples
        for _ in 0..<12 {
            let chosen = samples.filter { $0.sigma < 0.2 * ($0.q - r) && $0.g < r + 0.4 * ($0.q - r) }
            guard let l = robustLocation(chosen.map { ($0.g, $0.sigma) }) else { return nil }
            let centre = l.centre
            let systematic = systematicRelativeError * centre
            let edgeError = l.standardError * Self.misfitInflation(misfitScale: misfitScale, scatterInflation: l.scatterInflation)
            result = Result(ratio: centre, standardError: (edgeError * edgeError + systematic * systematic).squareRoot(),
                            sampleCount: l.count, misfitScale: misfitScale)
            final = chosen
            if abs(centre - r) < 1e-5 { break }
            r = centre
        }
        // Each band of rows on its own, from the final selection.
        result?.rowBands = (0..<rowBandCount).map { k in
            rowBandLocation(final.filter { min(rowBandCount - 1, Int($0.t * Double(rowBandCount))) == k })
        }
        // Each channel on its own, from the same selection, and their disagreement beyond their errors.
        result?.channels = (0..<3).map { c in
            robustLocation(final.filter { $0.weights[c] > 0 }.map { ($0.gs[c], 1 / $0.weights[c].squareRoot()) })
        }
        let channelExcess = result.flatMap { channelHeterogeneity($0.channels) }
        result?.channelExcessVariance = channelExcess
        return result
    }

    /// The variance τ² between the channels' r₀ (`Result.channels`) beyond their standard errors, by
    /// DerSimonian & Laird's moment estimator (Control. Clin. Trials 7, 1986): with weights
    /// w_c = 1/SE_c² and Cochran's Q = Σ w_c (r_c − r̄)², τ² = (Q − (k − 1)) / (Σw − Σw²/Σw); nil with
    /// fewer than two channels or where Q is within its 99 % point (χ², k − 1 degrees of freedom:
    /// the channels agree). Across illumination edges every channel reads r₀ (the channels' χ²
    /// tests each profile); a profile's test has little power where the ambient light lights only
    /// one or two channels and the profiles are noisy, and reflectance edges between materials
    /// whose flash-to-ambient ratios differ then pass in numbers: each adds its own D_c/A_c step to
    /// channel c's g, so the channels' locations part while the mean of them is off as far (channels
    /// blurred unlike each other, as a demosaiced frame's are, part them too). The estimate counts
    /// τ² whole (not divided by the channels' count: the spread shows a bias that every channel
    /// shares) in r₀'s uncertainty (`AmbientRatioEstimate.channelExcess`). The channels' locations
    /// come from the same profiles (and a demosaiced frame's channels share noise), so Q is
    /// conservative. Not caught: under a blue LED spot on a scene without shadows (a review's Sigma
    /// render, EXIF exact; docs/real-capture-findings.md) green read 1.319 and blue 1.225 from 55 profiles, within their
    /// errors, and r₀ = 1.26 stands, stated to ±2.2 % for a truth of 1.
    static func channelHeterogeneity(_ channels: [TukeyBiweight.Location?]) -> Double? {
        let located = channels.compactMap { $0 }.filter { $0.standardError > 0 }
        guard located.count >= 2 else { return nil }
        let (q, tau2) = RandomEffects.heterogeneity(located.map { ($0.centre, $0.standardError) })
        guard q > AmbientRatioEstimate.chiSquare99[located.count - 1] else { return nil }
        return tau2
    }

    /// Tukey's biweight location of the profiles' g (or log scale) with their σ, where at least
    /// `minimumSamples` profiles go in and keep weight; nil otherwise.
    static func robustLocation(_ samples: [(value: Double, sigma: Double)]) -> TukeyBiweight.Location? {
        guard samples.count >= minimumSamples,
              let l = TukeyBiweight.location(samples, iterations: 10, tolerance: 1e-6), l.count >= minimumSamples else { return nil }
        return l
    }
}

/// The flash image's bend along short profiles, relative to its value: `D(s) ≈ D₀·(1 + a·s +
/// b·(s² − ⟨s²⟩))` over s = −reach…reach, with b a smooth function of the position (the light
/// field's cos θ/r² fall-off is the same whatever the surface; a reflectance only scales it). b is
/// measured per axis wherever neither the ambient frame (no ambient edge: A follows a line within its
/// noise) nor `F′ − A` (no reflectance edge: it follows a parabola within its noise) has an edge,
/// and fitted over the frame by a quadratic polynomial in the position (weighted least squares with
/// Tukey's biweight, Beaton & Tukey 1974). Away from ambient edges `F′ − A = D + (r₀ − 1)·A` bends
/// as D does, whatever r₀.
struct FlashCurvature {
    /// Polynomial coefficients (1, u, v, u², uv, v²), u and v the position in [−1, 1], per axis.
    var horizontal: [Double], vertical: [Double]
    /// Reduced image size the positions are relative to.
    let width: Int, height: Int

    /// Fewest quiet profiles per axis for a fit.
    static let minimumProfiles = 60

    /// b at a pixel, along the given axis.
    func relativeBend(x: Int, y: Int, horizontal along: Bool) -> Double {
        let u = 2 * (Double(x) + 0.5) / Double(width) - 1, v = 2 * (Double(y) + 0.5) / Double(height) - 1
        let c = along ? horizontal : vertical
        return c[0] + c[1] * u + c[2] * v + c[3] * u * u + c[4] * u * v + c[5] * v * v
    }

    /// Fits b from the pair and the (blurred, banding-free) flash channels `fPrime`; nil when
    /// too few quiet profiles are found on either axis.
    static func measure(_ p: ReducedFramePair, fPrime: [[Double]], reach: Int) -> FlashCurvature? {
        let w = p.width, h = p.height, n = 2 * reach + 1
        guard w > n, h > n else { return nil }
        let meanSquare = Double(reach * (reach + 1)) / 3
        var qq = 0.0, ss = 0.0
        for k in -reach...reach { let q = Double(k * k) - meanSquare; qq += q * q; ss += Double(k * k) }
        // Summed channels: D = F′ − A and its noise variance; A's.
        var d = [Double](repeating: 0, count: w * h), vd = d
        for j in 0..<(w * h) {
            for c in 0..<3 { d[j] += fPrime[c][j] - p.ambientChannels[c][j] }
            vd[j] = p.flashVariance[j] + p.ambientVariance[j]
        }
        var fits: [[Double]] = []
        for along in [true, false] {
            let stride = along ? 1 : w
            var rows: [(u: Double, v: Double, b: Double, weight: Double)] = []
            var dp = [Double](repeating: 0, count: n), ap = dp
            for y in (along ? 0 : reach)..<(along ? h : h - reach) {
                for x in (along ? reach : 0)..<(along ? w - reach : w) {
                    let j = y * w + x
                    guard d[j] > 0 else { continue }
                    var ok = true
                    for k in -reach...reach where !p.valid[j + k * stride] { ok = false; break }
                    guard ok else { continue }
                    for k in -reach...reach { dp[k + reach] = d[j + k * stride]; ap[k + reach] = p.ambient[j + k * stride] }
                    // A: residual from its line within twice its noise.
                    var am = 0.0, asl = 0.0
                    for k in -reach...reach { am += ap[k + reach]; asl += Double(k) * ap[k + reach] }
                    am /= Double(n); asl /= ss
                    var ar = 0.0
                    for k in -reach...reach { let e = ap[k + reach] - am - asl * Double(k); ar += e * e }
                    guard ar < 2 * Double(n - 2) * p.ambientVariance[j] else { continue }
                    // D: its parabola, and the residual from it within twice its noise.
                    var dm = 0.0, dsl = 0.0, dq = 0.0
                    for k in -reach...reach {
                        dm += dp[k + reach]; dsl += Double(k) * dp[k + reach]; dq += (Double(k * k) - meanSquare) * dp[k + reach]
                    }
                    dm /= Double(n); dsl /= ss; dq /= qq
                    var dr = 0.0
                    for k in -reach...reach {
                        let e = dp[k + reach] - dm - dsl * Double(k) - dq * (Double(k * k) - meanSquare); dr += e * e
                    }
                    guard dr < 2 * Double(n - 3) * vd[j] else { continue }
                    // var(b) = σ²_D / (Σq²·D²).
                    rows.append((2 * (Double(x) + 0.5) / Double(w) - 1, 2 * (Double(y) + 0.5) / Double(h) - 1,
                                 dq / d[j], d[j] * d[j] * qq / vd[j]))
                }
            }
            guard rows.count >= minimumProfiles else { return nil }
            var robust = [Double](repeating: 1, count: rows.count)
            var theta = [Double](repeating: 0, count: 6)
            for _ in 0..<4 {
                var ata = [Double](repeating: 0, count: 36), atb = [Double](repeating: 0, count: 6)
                for (i, r) in rows.enumerated() {
                    let x = SIMD8<Double>(1, r.u, r.v, r.u * r.u, r.u * r.v, r.v * r.v, 0, 0), wt = r.weight * robust[i]
                    for a in 0..<6 {
                        atb[a] += wt * x[a] * r.b
                        for b in 0..<6 { ata[a * 6 + b] += wt * x[a] * x[b] }
                    }
                }
                guard let t = solveSymmetric(ata, atb, size: 6) else { return nil }
                theta = t
                var z = [Float](repeating: 0, count: rows.count)
                for (i, r) in rows.enumerated() {
                    let fit = t[0] + t[1] * r.u + t[2] * r.v + t[3] * r.u * r.u + t[4] * r.u * r.v + t[5] * r.v * r.v
                    z[i] = Float(abs(r.b - fit) * r.weight.squareRoot())
                }
                robust = TukeyBiweight.weights(z)
            }
            fits.append(theta)
        }
        return FlashCurvature(horizontal: fits[0], vertical: fits[1], width: w, height: h)
    }
}
