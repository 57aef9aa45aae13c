import Foundation

/// Stage 4a's reading of the exposure ratio where no shadow edge is there to read it: from the
/// colours of the surfaces (issue 7, item 1: "the flash contribution has the flash's known colour
/// and varies across the frame with fall-off and distance, the ambient does not share that
/// structure").
///
/// Within one surface the flash-only image has one colour: `D*_i = k_i·S` at each cell i, `k_i` the
/// flash's irradiance there and `S` the surface's colour under the flash (the flash/no-flash model of
/// Petschnigg 2004 and Hui 2016: each light adds its own reflected colour). The ambient frame is
/// `A_i = m_i·a`. A flash frame that holds ρ times the ambient light its lines are taken to hold
/// (`r(y)`, EXIF's ratio with any banding) gives `F_i − ρ′·r_i·A_i = k_i·S + (ρ − ρ′)·r_i·A_i`: the
/// vectors are parallel (one colour) only at ρ′ = ρ, wherever the flash's fall-off and the ambient
/// light's gradient part across the surface (`k/m` varies). Where the two lights give a surface
/// one colour (`S ∥ a`) every ρ′ fits alike and the surface says nothing; there a wrong ratio moves
/// the lightness, not the colour, and the confidence's chroma metric is not misled either.
///
/// The measurement (on stage 4a's reduced pair, halved once more: cells of ~1/100 of the frame's
/// short side):
/// - cells are grouped by the ambient frame's chromaticity (log R/G and log B/G in bins of
///   `chromaticityBin`) around them — their four neighbours', not their own (`Cells.groupBin`) —
///   one surface each, keeping only cells whose ambient colour is measured well within a bin
///   (`maximumAmbientNoise`), inside a surface, in groups of at least `minimumCells`;
/// - cells stage 4c found something moved in are left out;
/// - for each candidate ρ′ each group's vectors `v_i = F_i − ρ′·r_i·A_i` are fitted by one direction
///   through the origin; the misfit is the sum of the two smaller eigenvalues of `Σ v_i v_iᵀ` less
///   the noise models' part of it, which grows with ρ′² (`Moments.logLikelihood`);
/// - a surface on which the two lights are too alike in colour is not read (`minimumLightsApart`);
/// - each group's ρ is the minimum of its profile likelihood `2n·log misfit(ρ′)` (a Gaussian misfit
///   of unknown scale: a textured surface's curve is shallower), its standard error from the curve's
///   curvature there;
/// - the surfaces' readings are combined by their random-effects mean (`RandomEffects`): each
///   surface may be off by a bias of its own, and their scatter beyond their errors counts in the
///   standard error; errors every surface shares (a flash colour shading no map corrects, a flicker
///   banding fitted at the tags' ratio) are added to it, as no scatter shows them.
/// A surface whose colour lies across a bin's edge makes two groups, which share its bias; and
/// surfaces of one colour under the ambient light but not under the flash (metamers) share a group
/// and misfit it: both weigh on the scatter, not on one reading.
/// The colour shading of a flash profile's map (`FlashShading`) is divided out of every cell first:
/// a flash bluer in the middle would otherwise part one surface's colours radially, as a wrong ratio
/// with a radial fall-off does.
public struct SurfaceColourRatio: Sendable, Equatable {
    /// ρ: the flash frame's ambient exposure over what its lines were taken to hold (1 = right).
    public var ratio: Double
    /// Its standard error: the surfaces' random-effects mean's (`RandomEffects`), with the
    /// systematic errors no surface's scatter shows (`unmappedColourDrift`, the banding's).
    public var standardError: Double
    /// Surfaces (chromaticity groups) and cells the reading rests on.
    public var groupCount: Int, cellCount: Int

    /// Width of a chromaticity bin, in natural log units of R/G and B/G: 0.02 (2 % in a ratio).
    static let chromaticityBin = 0.02
    /// Largest relative noise standard deviation of a cell's ambient channels for the cell to be
    /// grouped: one bin, so that noise moves a cell at most into a neighbouring bin.
    static let maximumAmbientNoise = 0.02
    /// Fewest cells a group needs.
    static let minimumCells = 30
    /// Fewest surfaces a reading needs (their scatter needs several).
    static let minimumGroups = 5
    /// The searched range of log₂ ρ′ (a quarter to four times the lines' ratio) and the coarse grid's step.
    static let searchedLog2Range = -2.0...2.0, coarseStep = 0.02
    /// The colour drift across the frame assumed where the flash profile has no shading map, as the
    /// share of a surface's flash-lit colour it moves: 2 % (a phosphor LED's colour drifts with angle
    /// by a few per cent). The reading takes such a drift for ambient light left in D, in proportion
    /// to the ambient light's share of the flash frame, so its error is this over that share
    /// (`measure`): the probe's 600 × 400 renders, tags right, read 1.14 at a share of 0.34 and 1.5–3
    /// at 50 lux under a blue loss of 0.12 at the frame's edge.
    static let unmappedColourDrift = 0.02
    /// The least sine of the angle between a surface's mean colours of D and of the ambient light for
    /// it to be read (`Moments.lightsApart`): where the two lights give a surface nearly one colour its
    /// curve is nearly flat, and what is left of the noise's part and the surface's texture sets its
    /// minimum (under 6500 K, tags right, 0.60 for 1 from 8 surfaces, a contradiction, on a probe's
    /// render; with this, no reading). 0.06: about 6 % apart in chromaticity.
    static let minimumLightsApart = 0.06

    /// The reading on `reduced` (flash frame and registered ambient frame), whose ambient light was
    /// taken at `lineRatios` along `readout` times `channelScale`, with `bandingAmplitude` (the fitted
    /// flicker banding's summed amplitudes over the ratio, 0 without) counted as a systematic error:
    /// a banding fitted at a wrong ratio holds some of the ambient light's structure, and moves every
    /// surface's reading alike (100 Hz at depth 0.5 with a 1.3× tag read 1.15). `shading` is the flash
    /// profile's map (nil: `unmappedColourDrift` is counted). Nil where fewer than `minimumGroups`
    /// surfaces qualify (a surface whose minimum lies at the searched range's end, or whose curve is
    /// flat, does not). `excluded` marks cells of `reduced` (row-major) to leave out: stage 4c's,
    /// where something moved between the frames.
    static func measure(_ reduced: ReducedFramePair, lineRatios: [Float], readout: ReadoutAxis,
                        channelScale: SIMD3<Double>, bandingAmplitude: Double, shading: FlashShading?,
                        excluded: [Bool]? = nil) -> SurfaceColourRatio? {
        let pair = reduced.halved()
        let cells = Cells(pair, lineRatios: lineRatios, readout: readout, channelScale: channelScale, shading: shading,
                          excluded: excluded, reducedWidth: reduced.width)
        let groups = cells.groups().map { Moments(cells, $0) }
        guard groups.count >= minimumGroups else { return nil }
        // Each surface's own reading, then their random-effects mean.
        let coarse = Array(stride(from: searchedLog2Range.lowerBound, through: searchedLog2Range.upperBound + 1e-9, by: coarseStep))
        let read = groups.compactMap { g in g.reading(grid: coarse).map { (g, $0) } }
        guard read.count >= minimumGroups else { return nil }
        let (centre, error, _) = RandomEffects.mean(read.map(\.1))
        let ratio = exp2(centre)
        // log₂ → relative: dρ/ρ = ln 2 · d log₂ ρ; the systematic errors added in quadrature.
        let systematic = shading == nil ? unmappedColourDrift / max(1e-3, cells.ambientShare(read.map(\.0))) : 0
        let relative = ((log(2) * error) * (log(2) * error) + systematic * systematic + bandingAmplitude * bandingAmplitude).squareRoot()
        return SurfaceColourRatio(ratio: ratio, standardError: ratio * relative, groupCount: read.count,
                                  cellCount: read.reduce(0) { $0 + $1.0.count })
    }

    /// Index of the smallest finite value (nil: none).
    static func argmin(_ values: [Double]) -> Int? {
        var best: Int? = nil
        for i in values.indices where values[i].isFinite && (best == nil || values[i] < values[best!]) { best = i }
        return best
    }

    /// The cells of the halved pair: per cell the flash frame and the ambient light taken
    /// (`r_i·k_c·A_i`), both with the flash's colour shading divided out, and the ambient frame's own
    /// block means of those that can be grouped.
    struct Cells {
        /// Per cell: F and the ambient light taken (red, green, blue).
        var flash: [SIMD3<Double>] = [], ambient: [SIMD3<Double>] = []
        /// The ambient frame's block mean of each cell that can be grouped (nil: not valid, a channel
        /// not positive, or its colour not measured within a bin).
        var measured: [SIMD3<Double>?] = []
        /// Per cell: the noise variances of F and of the ambient light taken, per channel (the noise
        /// models', `ReducedFramePair`), with the same gains.
        var flashVariance: [SIMD3<Double>] = [], ambientVariance: [SIMD3<Double>] = []
        /// The pair's width and height in cells.
        var width = 0, height = 0

        init(_ pair: ReducedFramePair, lineRatios: [Float], readout: ReadoutAxis, channelScale: SIMD3<Double>, shading: FlashShading?,
             excluded: [Bool]?, reducedWidth: Int) {
            let correction = shading.map { FlashShadingCorrection($0) }
            width = pair.width; height = pair.height
            for y in 0..<pair.height {
                for x in 0..<pair.width {
                    let j = y * pair.width + x
                    let cx = Double(pair.origin + x * pair.block) + Double(pair.block) / 2
                    let cy = Double(pair.origin + y * pair.block) + Double(pair.block) / 2
                    let line = readout == .rows ? Int(cy) : Int(cx)
                    let r = lineRatios.isEmpty ? 1 : Double(lineRatios[min(lineRatios.count - 1, max(0, line))])
                    let gain = correction?.gain(atRelativeX: cx / Double(pair.fullWidth), y: cy / Double(pair.fullHeight))
                        ?? SIMD3(1, 1, 1)
                    let f = SIMD3(pair.flashChannels[0][j], pair.flashChannels[1][j], pair.flashChannels[2][j])
                    let a = SIMD3(pair.ambientChannels[0][j], pair.ambientChannels[1][j], pair.ambientChannels[2][j])
                    let va = SIMD3(pair.ambientChannelVariance[0][j], pair.ambientChannelVariance[1][j], pair.ambientChannelVariance[2][j])
                    let vf = SIMD3(pair.flashChannelVariance[0][j], pair.flashChannelVariance[1][j], pair.flashChannelVariance[2][j])
                    let scale = gain * r * channelScale
                    flash.append(gain * f); ambient.append(scale * a)
                    flashVariance.append(gain * gain * vf); ambientVariance.append(scale * scale * va)
                    // Grouped where valid (no clipping, an ambient sample), every channel positive, and
                    // the ambient channels measured within a bin (by the noise model, not the value).
                    let relativeNoise = (va / (a * a)).max().squareRoot()
                    // (The halved pair's cell (x, y) holds the reduced pair's 2x…2x+1, 2y…2y+1.)
                    let corner = 2 * y * reducedWidth + 2 * x
                    let moved = excluded.map { e in e[corner] || e[corner + 1] || e[corner + reducedWidth] || e[corner + reducedWidth + 1] } ?? false
                    let usable = !moved && pair.valid[j] && a.min() > 0 && f.min() > 0 && relativeNoise.isFinite
                        && relativeNoise <= SurfaceColourRatio.maximumAmbientNoise
                    measured.append(usable ? a : nil)
                }
            }
        }

        /// The median share of the flash frame that is ambient light (summed over the channels) over
        /// the cells of `groups`.
        func ambientShare(_ groups: [Moments]) -> Double {
            let shares = groups.flatMap(\.cells).map { ambient[$0].sum() / max(1e-300, flash[$0].sum()) }.sorted()
            return shares.isEmpty ? 1 : shares[shares.count / 2]
        }

        /// The chromaticity bin of an ambient colour.
        static func bin(_ a: SIMD3<Double>) -> SIMD2<Int32> {
            let w = SurfaceColourRatio.chromaticityBin
            return SIMD2(Int32((log(a.x / a.y) / w).rounded(.down)), Int32((log(a.z / a.y) / w).rounded(.down)))
        }

        /// The bin cell j is grouped in: that of its four neighbours' mean ambient colour, where the
        /// cell and its neighbours can be grouped and each neighbour's own colour lies in that bin or
        /// the next (the cell lies inside a surface); nil otherwise. The cell's own colour is not
        /// looked at: grouped by it, cells whose ambient noise happens to lie along the bin's colour
        /// are kept, their A made more alike than the light made them, and `F − ρ′A` fits one
        /// direction better the larger ρ′ (a probe's 50 lux renders, tags right: 1.83 for 1 under
        /// 6500 K; 1.08 without noise). A cell on a border between surfaces mixes their colours, and
        /// the ambient frame's blur (hand shake, resampling) mixes them unlike the flash frame's.
        /// `ownBins`: each cell's own bin (`bin` of `measured`), computed once for all its neighbours.
        func groupBin(_ j: Int, ownBins: [SIMD2<Int32>?]) -> SIMD2<Int32>? {
            guard measured[j] != nil else { return nil }
            let x = j % width, y = j / width
            guard x > 0, y > 0, x < width - 1, y < height - 1 else { return nil }
            guard let l = measured[j - 1], let r = measured[j + 1], let u = measured[j - width], let d = measured[j + width] else { return nil }
            let b = Self.bin(l + r + u + d)
            @inline(__always) func near(_ k: Int) -> Bool {
                guard let own = ownBins[k] else { return false }
                return abs(own.x - b.x) <= 1 && abs(own.y - b.y) <= 1
            }
            return near(j - 1) && near(j + 1) && near(j - width) && near(j + width) ? b : nil
        }

        /// The cells of each group bin (`groupBin`) holding at least `minimumCells`, in a fixed order.
        func groups() -> [[Int]] {
            var byBin: [SIMD2<Int32>: [Int]] = [:]
            let ownBins = measured.map { $0.map(Self.bin) }
            for j in measured.indices { if let b = groupBin(j, ownBins: ownBins) { byBin[b, default: []].append(j) } }
            return byBin.filter { $0.value.count >= SurfaceColourRatio.minimumCells }
                .sorted { ($0.key.x, $0.key.y) < ($1.key.x, $1.key.y) }.map(\.value)
        }
    }

    /// One group's second moments, `Σ F Fᵀ`, `Σ (F Aᵀ + A Fᵀ)` and `Σ A Aᵀ` (each symmetric: xx, yy,
    /// zz, xy, xz, yz), from which `Σ v vᵀ` at any ρ′ is `FF − ρ′·FA + ρ′²·AA`, and the noise's part of
    /// it, `diag(N_F + ρ′²·N_A)` (the noise models' variances summed over the cells).
    struct Moments {
        var ff = SIMD8<Double>(), fa = SIMD8<Double>(), aa = SIMD8<Double>()  // (six of eight lanes used)
        var flashNoise = SIMD3<Double>(), ambientNoise = SIMD3<Double>()
        /// Σ (F − A) and Σ A: the group's mean colours of D (at the lines' ratio) and of the ambient light.
        var darkRoomSum = SIMD3<Double>(), ambientSum = SIMD3<Double>()
        /// The group's cells.
        let cells: [Int]
        /// Cells in the group.
        var count: Int { cells.count }

        init(_ all: Cells, _ group: [Int]) {
            cells = group
            for j in group {
                let f = all.flash[j], a = all.ambient[j]
                ff[0] += f.x * f.x; ff[1] += f.y * f.y; ff[2] += f.z * f.z
                ff[3] += f.x * f.y; ff[4] += f.x * f.z; ff[5] += f.y * f.z
                fa[0] += 2 * f.x * a.x; fa[1] += 2 * f.y * a.y; fa[2] += 2 * f.z * a.z
                fa[3] += f.x * a.y + a.x * f.y; fa[4] += f.x * a.z + a.x * f.z; fa[5] += f.y * a.z + a.y * f.z
                aa[0] += a.x * a.x; aa[1] += a.y * a.y; aa[2] += a.z * a.z
                aa[3] += a.x * a.y; aa[4] += a.x * a.z; aa[5] += a.y * a.z
                flashNoise += all.flashVariance[j]; ambientNoise += all.ambientVariance[j]
                darkRoomSum += f - a; ambientSum += a
            }
        }

        /// The group's −2 log-likelihood (up to a constant) at log₂ ρ′: `2n·log misfit(ρ′)`. The misfit
        /// is the sum of the two smaller eigenvalues (trace less the largest) of `Σ v vᵀ` less its
        /// noise part at ρ′, plus that part's share at ρ′ = 1: the noise adds `ρ′²·N_A` to every
        /// direction, so uncorrected it makes a smaller ρ′ fit better wherever the surfaces say little
        /// (under light near the flash's colour, 0.4–0.7 for 1 on a probe's renders); corrected, the
        /// misfit's noise floor is one level at every ρ′ (two thirds of the trace at ρ′ = 1).
        func logLikelihood(_ l: Double) -> Double {
            let rho = exp2(l), rho2 = rho * rho
            var m = ff - rho * fa + rho2 * aa
            let noise = flashNoise + rho2 * ambientNoise
            m[0] -= noise.x; m[1] -= noise.y; m[2] -= noise.z
            let floor = 2 * (flashNoise + ambientNoise).sum() / 3
            let misfit = (m[0] + m[1] + m[2]) - SurfaceColourRatio.largestEigenvalue(m[0], m[1], m[2], m[3], m[4], m[5]) + floor
            return 2 * Double(count) * log(max(misfit, floor * 1e-3, 1e-300))
        }

        /// The sine of the angle between the group's mean colours of D and of the ambient light: how
        /// far apart the two lights are on this surface.
        var lightsApart: Double {
            let d = darkRoomSum, a = ambientSum
            let cross = SIMD3(d.y * a.z - d.z * a.y, d.z * a.x - d.x * a.z, d.x * a.y - d.y * a.x)
            return ((cross * cross).sum() / max(1e-300, (d * d).sum() * (a * a).sum())).squareRoot()
        }

        /// The group's log₂ ρ and its standard error: the minimum of its −2 log-likelihood on `grid`,
        /// refined by golden-section search between the grid's neighbours to under 10⁻⁵, and the
        /// error from the curvature there (the curve rises by 1 at one standard error), taken over a
        /// step of at most half that error. Nil where the lights are too alike on this surface
        /// (`minimumLightsApart`), the minimum lies at the grid's end (beyond the searched range) or
        /// the curve is not convex there.
        func reading(grid: [Double]) -> (value: Double, sigma: Double)? {
            guard lightsApart >= SurfaceColourRatio.minimumLightsApart else { return nil }
            let curve = grid.map(logLikelihood)
            guard let i = SurfaceColourRatio.argmin(curve), i > 0, i < grid.count - 1 else { return nil }
            let l = GoldenSection.minimum(grid[i - 1], grid[i + 1], iterations: 24, logLikelihood)
            var h = grid[i + 1] - grid[i], sigma = Double.infinity
            for _ in 0..<4 {
                let curvature = (logLikelihood(l + h) - 2 * logLikelihood(l) + logLikelihood(l - h)) / (h * h)
                guard curvature > 0 else { return nil }
                sigma = (2 / curvature).squareRoot()
                if h <= sigma / 2 { break }
                h = sigma / 2
            }
            return (l, sigma)
        }
    }

    /// The largest eigenvalue of the symmetric 3×3 matrix [[a, d, e], [d, b, f], [e, f, c]]
    /// (Smith 1961, "Eigenvalues of a symmetric 3 × 3 matrix", Commun. ACM 4(4): the trigonometric
    /// solution of the characteristic cubic).
    static func largestEigenvalue(_ a: Double, _ b: Double, _ c: Double, _ d: Double, _ e: Double, _ f: Double) -> Double {
        let p1 = d * d + e * e + f * f
        let q = (a + b + c) / 3
        let p2 = (a - q) * (a - q) + (b - q) * (b - q) + (c - q) * (c - q) + 2 * p1
        guard p2 > 0 else { return q }
        let p = (p2 / 6).squareRoot()
        let ba = (a - q) / p, bb = (b - q) / p, bc = (c - q) / p, bd = d / p, be = e / p, bf = f / p
        let det = ba * (bb * bc - bf * bf) - bd * (bd * bc - bf * be) + be * (bd * bf - bb * be)
        let r = max(-1, min(1, det / 2))
        return q + 2 * p * cos(acos(r) / 3)
    }
}
