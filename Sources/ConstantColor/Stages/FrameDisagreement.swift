import Foundation

/// Stage 4c (SPEC 2.6, local motion): where something moved between the two frames, found by the
/// structure of the ambient frame that the flash frame does not hold.
///
/// In a still scene the flash frame holds the ambient light too: `F = D + r·A` (stage 4a's r per line
/// and channel), so every edge of the registered ambient frame `A` is in `F` — a shadow or a
/// coloured light's edge as `r·ΔA` (F's ambient part), a reflectance edge as `Q·ΔA` with `Q = F/A ≥ r`
/// (both parts). The regression of F on A over a window, `g = cov(F, A) / var(A)`, is at least r.
/// Where an object moved, the ambient frame's outline of it lies where the flash frame shows one
/// surface on both sides (the object, or the background it left): F does not follow A there
/// (`g ≈ 0`), and `D = F − r·A` holds the outline with its sign turned, `−r·ΔA`. Both crescents between
/// the object's two positions are wrong in `D` — the flash frame's object over the ambient frame's
/// background, and the reverse — yet smooth inside, so the guided windows fitted them without misfit
/// (measurement confidence 0.87 in the crescent on the hard fixtures; docs/real-capture-findings.md,
/// sessions 40 and 44). An edge of the flash light alone (its shadows, highlights) is in F, not in A,
/// and does not count; nor does a wrong r, which moves g by a few per cent. The test has power where
/// `r·ΔA` stands above the flash frame's noise, i.e. where a ghost would move D visibly.
///
/// On stage 4a's reduced pair (`ReducedFramePair`, block means about 200 rows high), per window of
/// `windowRadius`: the deficit `Σ_c (k_c·var_s(A_c) − cov(F_c, A_c))` (var_s: A's variance less its
/// noise's; k_c = r·channel scale) beyond `minimumDeficitZ` of its noise, g below `maximumFollowing`
/// of k, A's structure at least `minimumSignal` times the window mean's noise variance in F, and the
/// window centred on A's edge. The hand shake of the longer ambient exposure blurs A's edges, so F is
/// first blurred as much (stage 4a's `ambientBlurVariance`, a Gaussian per axis): without it, windows
/// beside an edge saw A's blurred tail and none of F's sharp step (g ≈ 0 beside every edge at 800
/// lux). Flagged windows form regions (8-connected), each a piece of the ambient frame's outline of
/// what moved; regions near each other are matched together against the flash frame for the
/// displacement v (`displacement`). A region counts only if the flash frame shows the outline there:
/// most of its cells, moved by v, land on structure of F that A does not hold (`flashOnly`,
/// `minimumMatchedShare`). That is what tells motion from the still scene's ambient edges F does not
/// follow — a subject backlit in the ambient frame and lit by the flash (D falls where A rises), a
/// shake longer than the blur match, rows a flickering lamp left dark in the flash exposure — whose
/// counterparts in F are A's edges too. Nor may the outline's cells, unshifted, land on such structure
/// as often (for a v within a window radius, half as often: `inPlaceReach`) — bands or fringes the
/// flash frame has where A's outline is, and nothing moved. Every point of either crescent lies on
/// the outline moved by `t·v` for some t in [0, 1], so the outline swept along v (and widened by the
/// window) is set `PixelFlag.framesDisagree`: confidence 0 and the gap fill there (SPEC 2.6, 2.7).
/// Limits (docs/real-capture-findings.md, sessions 44–46): an object smaller than a window is not
/// found, one moving by less than a window only in pieces of its outline (a 1.5-cell motion at
/// 2400 × 1600: groups of 3–4 cells), nor one moving by more than `searchShare` of the short side;
/// under a flickering narrow-band lamp beside another (PWM at hundreds of hertz), and near a narrow
/// coloured spot's border, some still scenes are flagged; the deficit's noise counts blurred cells
/// as independent, so after a long blur match its z overstates the significance (by 1.2–1.7× in a
/// review's simulation).
public struct FrameDisagreement: Sendable, Equatable {
    /// One region where the frames disagree.
    public struct Region: Sendable, Equatable {
        /// Windows of the reduced pair on the ambient frame's outline of what moved.
        public var outlineCells: Int
        /// Full-resolution pixels (x, y) from the outline's place in the ambient frame to its place in
        /// the flash frame (never zero: an outline the flash frame does not show displaced is not a
        /// region, nor one it shows in place, `inPlaceReach`).
        public var displacement: SIMD2<Double>
    }

    /// The regions found, largest first.
    public var regions: [Region]
    /// Pixels set `PixelFlag.framesDisagree`.
    public var flaggedPixelCount: Int
    /// The reduced pair's cells set (row-major, `cellWidth × cellHeight`), their block side and origin.
    var cells: [Bool]
    var cellWidth: Int, cellHeight: Int, block: Int, origin: Int

    /// Nothing found (a pair too small to look at, or no disagreement).
    static let none = FrameDisagreement(regions: [], flaggedPixelCount: 0, cells: [], cellWidth: 0, cellHeight: 0, block: 1, origin: 0)

    /// Half side of the window, in cells of the reduced pair (5 × 5 windows: 10 pixels at 600 × 400,
    /// 75 at 12 MP): short enough that a window on the ambient frame's outline does not reach the
    /// flash frame's for a displacement of a few per cent of the frame.
    static let windowRadius = 2
    /// How far beyond its noise's standard deviation the deficit must be. The standard deviations
    /// of the channels are summed (not in quadrature): conservative.
    static let minimumDeficitZ = 6.0
    /// The most of A's structure the flash frame may follow (`g / k`) for a window to count: a still
    /// scene gives at least 1 (shadow edges 1, reflectance edges Q/r), an outline of what moved 0.
    static let maximumFollowing = 0.5
    /// The least structure of A, as it would show in F (`k²·var_s(A)`), over the noise variance of a
    /// window mean of F: 25. A step `k·ΔA` through the window's centre gives `var_s ≈ (ΔA)²/4`, so the
    /// ghost's step in D is then at least 10 standard deviations of the window mean of F — about one
    /// pixel's noise (a 5 × 5-cell window holds 100 pixels at 600 × 400), which the guided windows
    /// average to a tenth or less: an error the confidence would otherwise not see. A weaker
    /// outline's ghost is lost in the noise the confidence already counts. (At 100, half of the
    /// outline of a 50 lux condition was missed and its crescent stayed confident and wrong.)
    static let minimumSignal = 25.0
    /// A window counts only where A's edge strength at its centre is at least this share of the
    /// largest in the window: a window whose border just reaches an edge holds its tail and not the
    /// step (after the blur match, a residue of the shake's shape remains there).
    static let centredShare = 0.5
    /// The displacement is searched within this share of the reduced pair's short side, either way
    /// on each axis (1/8: 50 pixels at 600 × 400, 375 at 12 MP).
    static let searchShare = 0.125
    /// Most (outline cells × searched displacements) evaluated: groups of regions beyond it (the
    /// smaller come last) are not looked at (a pair of two unrelated scenes disagrees everywhere:
    /// about 0.1 s at this budget).
    static let searchBudget = 20_000_000
    /// Most regions looked at, the largest first (a pair whose frames disagree everywhere breaks into
    /// thousands; grouping them compares every pair).
    static let maximumRegions = 256
    /// The least share of an outline's cells that, moved by the displacement found, land on the
    /// flash frame's own structure (`flashOnly`, widened by a cell): 0.5. On the hard fixtures' moved
    /// disc 0.71–0.89 (session 44).
    static let minimumMatchedShare = 0.5
    /// The farthest (cells, on either axis) a counterpart may lie from the outline and still share
    /// its place: `windowRadius`, the reach of the centring (a window counts where its centre holds
    /// at least half of the window's largest edge strength, so a cell of either map lies up to a
    /// window radius from the edge it stands for). Within it, the flash frame's own structure and
    /// the ambient frame's outline can be one and the same place — the frames differ there, as
    /// rows a flickering lamp left dark in the flash exposure, or a demosaicing fringe in other
    /// light, make them, and nothing moved. So a shift this short counts only where the outline's
    /// own cells, unshifted, land on F's own structure less than `inPlaceShare` as often as moved by
    /// it. On the probe's still renders such groups flagged up to 25 % of a frame under PWM-dimmed
    /// flicker (best shifts of 1–2 cells, in place 0.55–0.87 of their share at the shift); a disc
    /// moved by 1.5 cells at 2400 × 1600 matched at 2 cells with nothing in place; moved discs of
    /// the hard fixtures matched at 5 cells or more (docs/real-capture-findings.md, session 46).
    static let inPlaceReach = windowRadius
    /// Within `inPlaceReach`, the most the outline's share on F's own structure in place may be, as
    /// a fraction of its share at the shift: a half (most of the match is not in place). Beyond it,
    /// the share in place must only be the smaller: where the outline lands on F's own structure as
    /// often unshifted, the match says nothing of a displacement (a 500 Hz PWM's bands matched a band
    /// away, 0.55 at the shift and 0.63 in place; the moved discs of the hard fixtures at most 0.78
    /// of their share in place).
    static let inPlaceShare = 0.5

    /// Looks for disagreement on the reduced pair (A = F − D with EXIF's ratio, as stage 4a reads it),
    /// with the ratio stage 4a measured (per line along its readout axis, and its channel scale).
    static func detect(reduced p: ReducedFramePair, ratio: AmbientRatioEstimate) -> FrameDisagreement {
        let w = p.width, h = p.height, n = w * h, rad = windowRadius
        guard w > 2 * rad + 2, h > 2 * rad + 2 else { return .none }
        // The flash frame blurred as the ambient one is (per axis, in cells²), its noise variance with it.
        let blur = ratio.ambientBlurVariance.map { $0 / Double(p.block * p.block) } ?? .zero
        let kernelX = gaussianKernel(variance: blur.x), kernelY = gaussianKernel(variance: blur.y)
        let flash = (0..<3).map { separableBlur(p.flashChannels[$0], width: w, height: h, kernelX: kernelX, kernelY: kernelY) }
        let stats = WindowStatistics(flash: flash, reduced: p, ratio: ratio, radius: rad,
                                     flashNoiseFactor: kernelX.reduce(0) { $0 + $1 * $1 } * kernelY.reduce(0) { $0 + $1 * $1 })
        // A window counts only if every cell it and the blur reach is valid, and where the frame's
        // edge strength at its centre is at least `centredShare` of the window's largest.
        let invalid = IntegralImage(p.valid.map { $0 ? 0 : 1 }, width: w, height: h)
        func centredWindows(edge: [Double], _ test: (Int) -> Bool) -> [Bool] {
            let largest = maximumFilter(edge, width: w, height: h, radius: rad)
            var set = [Bool](repeating: false, count: n)
            for y in 0..<h {
                for x in 0..<w {
                    let j = y * w + x
                    guard edge[j] >= centredShare * largest[j],
                          invalid.sum(CellWindow(x: x, y: y, radius: rad, width: w, height: h, extra: (kernelX.count / 2, kernelY.count / 2))) == 0
                    else { continue }
                    set[j] = test(j)
                }
            }
            return set
        }
        // The ambient frame's outline of what moved: A's structure that F does not follow.
        let ambientGradient = gradients(p.ambient, width: w, height: h)
        let outline = centredWindows(edge: ambientGradient.map { ($0 * $0).sum().squareRoot() }) { j in
            stats.deviation[j] > 0 && stats.expected[j] > 0 && stats.flashNoise[j] > 0
                && stats.deficit[j] > minimumDeficitZ * stats.deviation[j]
                && stats.followed[j] < maximumFollowing * stats.expected[j]
                && stats.signal[j] > minimumSignal * stats.flashNoise[j]
        }
        // The flash frame's own structure, where its outline of what moved lies (and its shadows and
        // highlights): F's structure that A does not follow, though A would show it clearly at the
        // local ratio A/F. An edge both frames hold, such as a chart's grid, is not.
        let flashGradient = gradients(channelSum(flash), width: w, height: h)
        let flashOnly = dilated(centredWindows(edge: flashGradient.map { ($0 * $0).sum().squareRoot() }) { j in
            stats.flashStructure[j] > 0 && stats.ambientNoise[j] > 0
                && stats.flashFollowed[j] < maximumFollowing * stats.flashStructure[j]
                && stats.flashSignal[j] > minimumSignal * stats.ambientNoise[j]
        }, width: w, height: h, radius: 1)
        // Regions, largest first, in groups of regions within the searched range of each other: pieces
        // of one outline more often than not (an outline breaks where the flash frame's background has
        // edges of its own), matched together for one displacement, within the search budget.
        let regions = Array(connectedRegions(outline, width: w, height: h).sorted { $0.count > $1.count }.prefix(maximumRegions))
        guard !regions.isEmpty else { return .none }
        let range = max(2, Int((Double(min(w, h)) * searchShare).rounded()))
        let perCell = (2 * range + 1) * (2 * range + 1)
        var budget = searchBudget
        var swept = [Bool](repeating: false, count: n)
        var found = [Region?](repeating: nil, count: regions.count)
        for group in nearbyGroups(regions, width: w, distance: range) {
            let cellsOfGroup = group.flatMap { regions[$0] }
            guard cellsOfGroup.count * perCell <= budget else { continue }
            budget -= cellsOfGroup.count * perCell
            let v = displacement(outline: cellsOfGroup, flashOnly: flashOnly, ambient: ambientGradient, flash: flashGradient,
                                 width: w, height: h, range: range)
            // Something moved only if the flash frame shows the outline elsewhere: most of its cells,
            // moved by v, land on structure of F that A does not hold. A still scene's ambient edges
            // that F does not follow (a subject backlit in the ambient frame and lit by the flash, a
            // shake longer than the blur match, rows a flickering light left dark in the flash
            // exposure) have no such counterpart: F's edges there are A's too.
            // And only if its cells land on F's own structure less often in place: as often, the
            // match says nothing of a displacement; within `inPlaceReach`, less than `inPlaceShare`
            // as often, else the frames differ in place, and nothing moved. (v = 0 never passes: its
            // share is its share in place.)
            let share = matchedShare(outline: cellsOfGroup, shiftedBy: v, onto: flashOnly, width: w, height: h)
            let inPlace = matchedShare(outline: cellsOfGroup, shiftedBy: .zero, onto: flashOnly, width: w, height: h)
            let inPlaceLimit = max(abs(v.x), abs(v.y)) > inPlaceReach ? 1 : inPlaceShare
            guard share >= minimumMatchedShare, inPlace < inPlaceLimit * share else { continue }
            for i in group {
                sweep(regions[i], along: v, radius: rad + 1, width: w, height: h, into: &swept)
                found[i] = Region(outlineCells: regions[i].count, displacement: SIMD2(Double(v.x * p.block), Double(v.y * p.block)))
            }
        }
        var result = FrameDisagreement(regions: found.compactMap { $0 }, flaggedPixelCount: 0, cells: swept, cellWidth: w,
                                       cellHeight: h, block: p.block, origin: p.origin)
        result.flaggedPixelCount = result.flaggedBlocks(width: p.fullWidth, height: p.fullHeight).reduce(0) { $0 + $1.rows.count * $1.columns.count }
        return result
    }

    /// The sum of three planes.
    static func channelSum(_ channels: [[Double]]) -> [Double] {
        (0..<channels[0].count).map { channels[0][$0] + channels[1][$0] + channels[2][$0] }
    }

    /// Per window (centred on each cell of the reduced pair), summed over the channels: the moments
    /// both tests read, from `flash` (F blurred as A is) and the pair's ambient planes and noise
    /// variances (F's times `flashNoiseFactor`, the blur's Σw²).
    struct WindowStatistics {
        /// `k_c·var_s(A_c) − cov(F_c, A_c)`, and its noise's standard deviation (channels' summed).
        var deficit: [Double], deviation: [Double]
        /// `cov(F_c, A_c)` and `k_c·var_s(A_c)`: g over k is their quotient.
        var followed: [Double], expected: [Double]
        /// `k_c²·var_s(A_c)`, and the noise variance of the window mean of F.
        var signal: [Double], flashNoise: [Double]
        /// `var_s(F_c)`, the part of it A's regression explains, `var_s(F_c)·(Ā_c/F̄_c)²` (F's
        /// structure as A would show it), and the noise variance of the window mean of A.
        var flashStructure: [Double], flashFollowed: [Double], flashSignal: [Double], ambientNoise: [Double]

        init(flash: [[Double]], reduced p: ReducedFramePair, ratio: AmbientRatioEstimate, radius rad: Int, flashNoiseFactor: Double) {
            let w = p.width, h = p.height, n = w * h
            let zero = [Double](repeating: 0, count: n)
            deficit = zero; deviation = zero; followed = zero; expected = zero; signal = zero; flashNoise = zero
            flashStructure = zero; flashFollowed = zero; flashSignal = zero; ambientNoise = zero
            let lineK = FrameDisagreement.reducedLineRatios(p, ratio: ratio), alongRows = ratio.readoutAxis == .rows
            for c in 0..<3 {
                let f = flash[c], a = p.ambientChannels[c]
                let sf = IntegralImage(f, width: w, height: h), sa = IntegralImage(a, width: w, height: h)
                let sfa = IntegralImage(zip(f, a).map { $0 * $1 }, width: w, height: h)
                let saa = IntegralImage(a.map { $0 * $0 }, width: w, height: h)
                let sff = IntegralImage(f.map { $0 * $0 }, width: w, height: h)
                let svf = IntegralImage(p.flashChannelVariance[c].map { $0 * flashNoiseFactor }, width: w, height: h)
                let sva = IntegralImage(p.ambientChannelVariance[c], width: w, height: h)
                for y in 0..<h {
                    for x in 0..<w {
                        let k = (alongRows ? lineK[y] : lineK[x]) * ratio.channelScale[c]
                        let box = CellWindow(x: x, y: y, radius: rad, width: w, height: h), count = Double(box.count)
                        let mf = sf.sum(box) / count, ma = sa.sum(box) / count
                        let cov = sfa.sum(box) / count - mf * ma
                        let varA = max(0, saa.sum(box) / count - ma * ma)
                        let nf = svf.sum(box) / count, na = sva.sum(box) / count
                        let varS = max(0, varA - na), varFs = max(0, sff.sum(box) / count - mf * mf - nf)
                        let j = y * w + x
                        deficit[j] += k * varS - cov
                        deviation[j] += ((varA * nf + k * k * na * varA) / count).squareRoot()
                        followed[j] += cov; expected[j] += k * varS
                        signal[j] += k * k * varS
                        flashNoise[j] += nf / count
                        flashStructure[j] += varFs
                        flashFollowed[j] += varS > 0 ? min(varFs, cov * cov / varS) : 0
                        if mf > 0 { flashSignal[j] += varFs * (ma / mf) * (ma / mf) }
                        ambientNoise[j] += na / count
                    }
                }
            }
        }
    }

    /// Stage 4a's ratio r per line of the reduced pair along its readout axis (the mean over the
    /// block's full-resolution lines); its mean ratio where the lines do not fit the pair.
    static func reducedLineRatios(_ p: ReducedFramePair, ratio: AmbientRatioEstimate) -> [Double] {
        let alongRows = ratio.readoutAxis == .rows
        let count = alongRows ? p.height : p.width, lines = ratio.lineRatios
        var out = [Double](repeating: ratio.meanRatio, count: count)
        guard lines.count == (alongRows ? p.fullHeight : p.fullWidth) else { return out }
        for i in 0..<count {
            let start = p.origin + i * p.block, end = min(lines.count, start + p.block)
            guard start < end else { continue }
            out[i] = lines[start..<end].reduce(0) { $0 + Double($1) } / Double(end - start)
        }
        return out
    }

    /// The full-resolution pixels of a cell: its block, the cells on the reduced pair's border
    /// reaching to the frame's border (the reduced pair leaves a remainder of under one block).
    private func pixelRange(cell i: Int, cells count: Int, full: Int) -> Range<Int> {
        let start = i == 0 ? 0 : origin + i * block
        let end = i == count - 1 ? full : origin + (i + 1) * block
        return start..<max(start, min(full, end))
    }

    /// The full-resolution pixel blocks (rows, columns) of the cells set, on a `width × height` frame.
    private func flaggedBlocks(width: Int, height: Int) -> [(rows: Range<Int>, columns: Range<Int>)] {
        var blocks: [(rows: Range<Int>, columns: Range<Int>)] = []
        for cy in 0..<cellHeight {
            let rows = pixelRange(cell: cy, cells: cellHeight, full: height)
            for cx in 0..<cellWidth where cells[cy * cellWidth + cx] {
                blocks.append((rows, pixelRange(cell: cx, cells: cellWidth, full: width)))
            }
        }
        return blocks
    }

    /// Sets `PixelFlag.framesDisagree` on the pixels of the regions found, in `flags` (flash-frame
    /// geometry, `width × height`: the frame the reduced pair was made from).
    public func mark(_ flags: inout [UInt8], width: Int, height: Int) {
        guard flaggedPixelCount > 0 else { return }
        precondition(flags.count == width * height)
        for block in flaggedBlocks(width: width, height: height) {
            for y in block.rows { for x in block.columns { flags[y * width + x] |= PixelFlag.framesDisagree } }
        }
    }

    /// A sampled Gaussian of the given variance (cells²), normalized, out to 3σ; `[1]` below 0.01.
    static func gaussianKernel(variance: Double) -> [Double] {
        guard variance >= 0.01 else { return [1] }
        let radius = max(1, Int((3 * variance.squareRoot()).rounded(.up)))
        let weights = (-radius...radius).map { exp(-Double($0 * $0) / (2 * variance)) }
        let total = weights.reduce(0, +)
        return weights.map { $0 / total }
    }

    /// `plane` convolved with `kernelX` along rows and `kernelY` along columns (odd lengths), the
    /// border samples repeated.
    static func separableBlur(_ plane: [Double], width w: Int, height h: Int, kernelX: [Double], kernelY: [Double]) -> [Double] {
        func pass(_ input: [Double], _ kernel: [Double], alongRows: Bool) -> [Double] {
            guard kernel.count > 1 else { return input }
            let r = kernel.count / 2
            var out = input
            for y in 0..<h {
                for x in 0..<w {
                    var s = 0.0
                    for (t, weight) in kernel.enumerated() {
                        let xx = alongRows ? min(w - 1, max(0, x + t - r)) : x
                        let yy = alongRows ? y : min(h - 1, max(0, y + t - r))
                        s += weight * input[yy * w + xx]
                    }
                    out[y * w + x] = s
                }
            }
            return out
        }
        return pass(pass(plane, kernelX, alongRows: true), kernelY, alongRows: false)
    }

    /// The largest value within `radius` (a square) of each cell.
    static func maximumFilter(_ plane: [Double], width w: Int, height h: Int, radius: Int) -> [Double] {
        var rows = plane
        for y in 0..<h { for x in 0..<w {
            var m = -Double.infinity
            for xx in max(0, x - radius)...min(w - 1, x + radius) { m = max(m, plane[y * w + xx]) }
            rows[y * w + x] = m
        } }
        var out = rows
        for y in 0..<h { for x in 0..<w {
            var m = -Double.infinity
            for yy in max(0, y - radius)...min(h - 1, y + radius) { m = max(m, rows[yy * w + x]) }
            out[y * w + x] = m
        } }
        return out
    }

    /// The 8-connected regions of the set cells, as lists of cell indices.
    static func connectedRegions(_ set: [Bool], width w: Int, height h: Int) -> [[Int]] {
        var seen = [Bool](repeating: false, count: set.count), regions: [[Int]] = []
        for start in set.indices where set[start] && !seen[start] {
            var region: [Int] = [], stack = [start]
            seen[start] = true
            while let j = stack.popLast() {
                region.append(j)
                let x = j % w, y = j / w
                for yy in max(0, y - 1)...min(h - 1, y + 1) {
                    for xx in max(0, x - 1)...min(w - 1, x + 1) {
                        let k = yy * w + xx
                        if set[k] && !seen[k] { seen[k] = true; stack.append(k) }
                    }
                }
            }
            regions.append(region)
        }
        return regions
    }

    /// Gradients (x, y) of `plane` smoothed by [1 2 1]/4 on each axis: central differences inside,
    /// one-sided at the border.
    static func gradients(_ plane: [Double], width w: Int, height h: Int) -> [SIMD2<Double>] {
        let s = separableBlur(plane, width: w, height: h, kernelX: [0.25, 0.5, 0.25], kernelY: [0.25, 0.5, 0.25])
        var out = [SIMD2<Double>](repeating: .zero, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                let x0 = max(0, x - 1), x1 = min(w - 1, x + 1), y0 = max(0, y - 1), y1 = min(h - 1, y + 1)
                out[y * w + x] = SIMD2((s[y * w + x1] - s[y * w + x0]) / Double(max(1, x1 - x0)),
                                       (s[y1 * w + x] - s[y0 * w + x]) / Double(max(1, y1 - y0)))
            }
        }
        return out
    }

    /// The shift v (cells, within `range` on each axis) at which the flash frame best shows the
    /// ambient frame's outline. Two matches, each scaled to 1 at its best, are added: the cosine of
    /// the two gradient fields over the outline, `Σ |∇A(q)·∇F(q + v)| / √Σ |∇F(q + v)|²` (channels
    /// summed; by direction as well as strength, so that a straight edge does not match an arc;
    /// either sign, since the lights may turn a contrast), and the same where the flash frame has
    /// structure of its own (`flashOnly`: its outline of what moved, not an edge both frames hold, such
    /// as a chart's grid, which offers the first a false match). On the hard fixtures (105
    /// conditions, session 44) each alone missed on 1–3, their sum on none. Ties go to the shorter
    /// shift; cells beyond the frame count 0.
    static func displacement(outline: [Int], flashOnly: [Bool], ambient: [SIMD2<Double>], flash: [SIMD2<Double>],
                             width w: Int, height h: Int, range: Int) -> SIMD2<Int> {
        let side = 2 * range + 1
        var all = [Double](repeating: 0, count: side * side), own = all
        for dy in -range...range {
            for dx in -range...range {
                var s = 0.0, norm = 0.0, sOwn = 0.0, normOwn = 0.0
                for j in outline {
                    let x = j % w + dx, y = j / w + dy
                    guard x >= 0, y >= 0, x < w, y < h else { continue }
                    let k = y * w + x, g = flash[k]
                    let dot = abs((ambient[j] * g).sum()), g2 = (g * g).sum()
                    s += dot; norm += g2
                    if flashOnly[k] { sOwn += dot; normOwn += g2 }
                }
                let t = (dy + range) * side + dx + range
                all[t] = norm > 0 ? s / norm.squareRoot() : 0
                own[t] = normOwn > 0 ? sOwn / normOwn.squareRoot() : 0
            }
        }
        let bestAll = all.max() ?? 0, bestOwn = own.max() ?? 0
        var best = SIMD2<Int>(0, 0), bestScore = 0.0
        for t in all.indices {
            let score = (bestAll > 0 ? all[t] / bestAll : 0) + (bestOwn > 0 ? own[t] / bestOwn : 0)
            let v = SIMD2(t % side - range, t / side - range)
            if score > bestScore || (score == bestScore && v.x * v.x + v.y * v.y < best.x * best.x + best.y * best.y) {
                bestScore = score; best = v
            }
        }
        return best
    }

    /// The share of the outline's cells q for which q + v lies on a set cell of `set` (cells beyond
    /// the plane count as not set).
    static func matchedShare(outline: [Int], shiftedBy v: SIMD2<Int>, onto set: [Bool], width w: Int, height h: Int) -> Double {
        guard !outline.isEmpty else { return 0 }
        var hits = 0
        for j in outline {
            let x = j % w + v.x, y = j / w + v.y
            if x >= 0, y >= 0, x < w, y < h, set[y * w + x] { hits += 1 }
        }
        return Double(hits) / Double(outline.count)
    }

    /// The regions (cell lists, on a plane `width` wide) grouped by nearness: two regions whose
    /// bounding boxes lie within `distance` cells of each other are in one group, and so on (the
    /// groups of that relation's transitive closure), each group's regions in the given order.
    static func nearbyGroups(_ regions: [[Int]], width w: Int, distance: Int) -> [[Int]] {
        let bounds = regions.map { cells -> (x0: Int, y0: Int, x1: Int, y1: Int) in
            var b = (x0: Int.max, y0: Int.max, x1: Int.min, y1: Int.min)
            for j in cells { b = (min(b.x0, j % w), min(b.y0, j / w), max(b.x1, j % w), max(b.y1, j / w)) }
            return b
        }
        var group = Array(regions.indices)
        func root(_ i: Int) -> Int { var i = i; while group[i] != i { i = group[i] }; return i }
        for i in regions.indices {
            for j in (i + 1)..<regions.count {
                let a = bounds[i], b = bounds[j]
                guard max(a.x0 - b.x1, b.x0 - a.x1, a.y0 - b.y1, b.y0 - a.y1) <= distance else { continue }
                let ri = root(i), rj = root(j)
                if ri != rj { group[max(ri, rj)] = min(ri, rj) }
            }
        }
        var members: [Int: [Int]] = [:], order: [Int] = []
        for i in regions.indices {
            let r = root(i)
            if members[r] == nil { order.append(r) }
            members[r, default: []].append(i)
        }
        return order.map { members[$0]! }
    }

    /// The cells within `radius` (a square) of a set cell: `maximumFilter` of the set.
    static func dilated(_ set: [Bool], width w: Int, height h: Int, radius: Int) -> [Bool] {
        maximumFilter(set.map { $0 ? 1 : 0 }, width: w, height: h, radius: radius).map { $0 > 0 }
    }

    /// Sets the cells within `radius` (a square) of the outline moved by `t·v`, t from 0 to 1 in
    /// steps of at most half a cell.
    static func sweep(_ outline: [Int], along v: SIMD2<Int>, radius: Int, width w: Int, height h: Int, into set: inout [Bool]) {
        let length = (Double(v.x * v.x + v.y * v.y)).squareRoot()
        let steps = max(1, Int((2 * length).rounded(.up)))
        var centres = [Bool](repeating: false, count: w * h)
        for j in outline {
            let x = Double(j % w), y = Double(j / w)
            for s in 0...steps {
                let t = Double(s) / Double(steps)
                let cx = Int((x + t * Double(v.x)).rounded()), cy = Int((y + t * Double(v.y)).rounded())
                guard cx >= 0, cy >= 0, cx < w, cy < h else { continue }
                centres[cy * w + cx] = true
            }
        }
        for (j, covered) in dilated(centres, width: w, height: h, radius: radius).enumerated() where covered { set[j] = true }
    }
}
