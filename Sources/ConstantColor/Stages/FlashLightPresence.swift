/// Whether the flash frame holds any flash light at all: a flash frame that is the registered
/// ambient frame scaled, line by line, within the frames' noise is an ambient exposure (the flash
/// did not fire), whatever its exposure tags say.
///
/// Flash light and ambient light reach the scene from different places and with different spectra:
/// the flash falls off with distance from its axis and casts its own shadows, the ambient light has
/// its own, and a surface's ratio of the two differs from one material to the next (the ambient-to-
/// flash ratio of red over green's spans 1.04–1.16 for the Sigma and 1.26–1.75 for the Nikon across
/// a ColorChecker's 24 patches; docs/real-capture-findings.md, session 28).
/// So with flash light in the frame, `F_c = D_c + r·A_c` is not `m_c·A_c` for any one factor, even
/// along one line. Without it, `F = m·A` (m the true ratio of the two exposures; per line, since a
/// flickering light reaches the two exposures differently in each line a rolling shutter reads), and
/// `D = F − r·A = (m − r)·A`: when the exposure tags put `r` below `m` (tags of another capture,
/// exposures typed by hand), D is the ambient-lit scene, bright and of the ambient light's colour —
/// not flash light — and nothing else in the pipeline can tell: an error of r moves D along A's
/// colour, which for `D ∝ A` is D's own (lightness, not chroma), and no ambient edge is left to
/// measure r by (every one reads `g = Q`). Such pairs rendered 0.91–0.95 `constantColor` with the
/// ambient light's colours before this check.
///
/// Measured on stage 4a's reduced pair (`ReducedFramePair`, block means, about 200 blocks high, with
/// the noise models' variances): per line and channel, the factor `m` that best explains `F` by `A`
/// (weighted least squares, errors in both), and the standardized residuals
/// `z = (F − m·A)/√(σ²_F + m²σ²_A)`, scaled by √(n/(n − 1)) for the factor fitted to the line's n
/// blocks. `structure` is their median `z²` over the χ²(1) median 0.455: about 1 where F is a scaled
/// A within the noise (edges, shake and a moved object touch a minority of the blocks and leave the
/// median), far above where flash light is measured — unless the frames' noise is understated by
/// the camera profile; `neighbourStructure` compares the same residuals with their neighbours'
/// differences instead, which no error of the noise model's scale moves. A flash that lights only
/// a minority of the blocks (a near subject before a far background) leaves the median too; flash
/// light only adds, so those blocks stand out on one side of a factor the majority sets (`m̃`: the
/// median of `F/A`, then least squares over the blocks within 4 standard deviations of it):
/// `brightExcess`, the share of blocks more than 4 standard deviations above `m̃·A` less the share
/// as far below, is about 0 where the residuals are the noise's, or edges and motion, which go both
/// ways. `ambientScale` is `m̃`. Lines along both axes
/// (rows and columns), the one with the smaller structure taken: the readout may run along either.
public struct FlashLightPresence: Sendable, Equatable {
    /// The median standardized residual² of the flash frame about the scaled ambient frame, over the
    /// χ²(1) median (1: noise only).
    public var structure: Double
    /// Per channel (red, green, blue), the median over lines of the fitted factor `m`, in units of
    /// the exposure tags' ratio (1: as tagged): how much more ambient exposure the flash frame holds
    /// than the tags say.
    public var ambientScale: SIMD3<Double>
    /// The same median z² over the median of the neighbouring blocks' differences of residual, each
    /// over its noise (`(e₂ − e₁)²/(σ₁² + σ₂²)`, blocks next to each other on a line): about 1 where
    /// the residuals are white noise, whatever scale the camera profile gives the noise (the scale
    /// divides out), far above where the residual is the smooth structure of flash light (fall-off,
    /// the flash's own shadows: neighbouring blocks share it).
    public var neighbourStructure: Double
    /// The share of the blocks (all channels) whose residual is above 4 standard deviations, less the
    /// share below −4: flash light in a minority of them.
    public var brightExcess: Double
    /// Blocks measured.
    public var blockCount: Int

    /// `structure` below which the flash frame may be a scaled ambient frame: the residuals at most
    /// twice the noise model's standard deviation (an understated noise model is allowed for up to
    /// that factor). Measured (`fuse` on 600 × 400 `synth` renders, Nikon profile): 1.05–1.08 for a
    /// flash that did not fire, whatever the exposure tags; 6.9–36 on the committed fixtures but for
    /// the 20 000 lux one (1.33), 10.3–295 on the 120 hard conditions (600 × 400 raw, bilinear and
    /// Malvar, 1200 × 800 raw), 2250 on the 12 MP bench pair; 1.1–2.6 under flashes of 2–10 lux
    /// against 200–800 lux of ambient light (mean confidence 0.003–0.10). Those weak flashes, and
    /// the 20 000 lux fixture, the other conditions keep unflagged: shadow edges measured, channel
    /// shifts apart, or a scale within the tags' uncertainty.
    public static let absentStructure = 4.0

    /// `neighbourStructure` below which the flash frame is a scaled ambient frame whatever
    /// `structure` says: a camera profile that understates the frames' noise k times inflates
    /// `structure` k² times (9.5–9.8 at k = 3, 105–108 at k = 10 on the unfired renders below), while
    /// `neighbourStructure` stays where it was. Measured (`fuse` on the pairs of `absentStructure`):
    /// 1.03–1.10 for a flash that did not fire, with the Nikon profile and with its noise understated
    /// 3× and 10×; 6.6–226 on the committed fixtures and the 120 hard conditions but for the
    /// 20 000 lux fixture (1.31, its scale within the tags'); 1.06–5.6 under the weak flashes.
    /// Understated noise also lets noise pass for shadow edges (126–141 of them beyond the searched
    /// range on those renders at k = 3, where the edges' own misfit said the noise was 7.6–8.9×
    /// the model's), so on this path edges whose misfit says so do not keep the flash frame's light.
    public static let absentNeighbourStructure = 1.5

    /// How far apart the channels' `m − 1` may be, relative to green's, for one exposure's: an
    /// exposure error (time, gain, aperture) moves every channel's `m` alike, while flash light adds
    /// its own colour — also where it is weak and the tags are right (`m_c − 1` is then the flash's
    /// share of each channel, apart by the two lights' colours). A uniform flash on a flat scene under
    /// uniform ambient light leaves `F_c ∝ A_c` too, channel by channel, with `m_c` apart (the CLI
    /// tests' hand-made pair: 9, 14 and 18).
    public static let channelScaleAgreement = 0.1

    /// The most `brightExcess` a scaled ambient exposure shows.
    public static let brightExcessLimit = 0.01

    /// Whether no flash light was measured: the flash frame is the ambient frame scaled within its
    /// noise (`absentStructure`, `brightExcessLimit`), by one factor in every channel
    /// (`channelScaleAgreement`), no ambient shadow edge measured flash light beside it
    /// (`edgesMeasured` false: an illumination edge is one where `F/A` exceeds the edge's ratio; also
    /// false where edges were not looked for) — or its residuals about the scaled ambient frame are
    /// white whatever the noise model's scale (`absentNeighbourStructure`), with no edge measured or
    /// the edges' own residuals over the noise model's (`edgesOverNoise`: their misfit scale above
    /// `AmbientRatioEstimate.understatedNoiseMisfitScale`; a faint flash beside an exposure error
    /// leaves white residuals too, and its edges measure it) — and the scale is off the exposure
    /// tags' by more than
    /// their stated relative uncertainty `tagUncertainty` — so that `D = (m − r)·A` would be taken for
    /// flash light. (A scale within it leaves D small against its uncertainty, and the confidence low.)
    public func indicatesNoFlashLight(edgesMeasured: Bool, edgesOverNoise: Bool = false, tagUncertainty: Double) -> Bool {
        let shift = ambientScale - 1
        let channelsAgree = abs(shift.y) > 0 && abs(shift.x - shift.y) < Self.channelScaleAgreement * abs(shift.y)
            && abs(shift.z - shift.y) < Self.channelScaleAgreement * abs(shift.y)
        // White residuals at the blocks' scale are no flash light whatever the noise model's scale;
        // shadow edges measured beside them count unless their own residuals say that the model
        // understates the noise (then they may be that noise passing for edges).
        let white = neighbourStructure < Self.absentNeighbourStructure
        let scaledAmbient = (white || structure < Self.absentStructure) && (!edgesMeasured || (white && edgesOverNoise))
        return scaledAmbient && brightExcess < Self.brightExcessLimit && channelsAgree && abs(shift.y) > tagUncertainty
    }

    /// Fewest valid blocks with ambient signal a line needs to be fitted.
    static let minimumBlocksPerLine = 8

    /// The χ²(1) median.
    static let chiSquareOneMedian = 0.4549

    /// Measures `pair` along its rows and its columns; nil where too few blocks carry ambient signal
    /// (a dark ambient frame: then D is the flash frame's and there is nothing to mistake).
    static func measure(_ pair: ReducedFramePair) -> FlashLightPresence? {
        let rows = measure(pair, alongRows: true), columns = measure(pair, alongRows: false)
        guard let r = rows else { return columns }
        guard let c = columns else { return r }
        return r.structure <= c.structure ? r : c
    }

    /// One axis: lines are rows (`alongRows`) or columns.
    static func measure(_ p: ReducedFramePair, alongRows: Bool) -> FlashLightPresence? {
        let lineCount = alongRows ? p.height : p.width, lineLength = alongRows ? p.width : p.height
        var squares: [Float] = [], differences: [Float] = [], scales: [[Float]] = [[], [], []]
        squares.reserveCapacity(3 * p.width * p.height)
        differences.reserveCapacity(3 * p.width * p.height)
        let neighbour = alongRows ? 1 : p.width  // the next block on a line
        var index = [Int](), blocks = 0, bright = 0, dark = 0, ratios: [Float] = []
        index.reserveCapacity(lineLength)
        for line in 0..<lineCount {
            index.removeAll(keepingCapacity: true)
            for i in 0..<lineLength {
                let j = alongRows ? line * p.width + i : i * p.width + line
                if p.valid[j] && p.ambient[j] > 0 { index.append(j) }
            }
            guard index.count >= minimumBlocksPerLine else { continue }
            blocks += index.count
            for c in 0..<3 {
                let f = p.flashChannels[c], a = p.ambientChannels[c]
                let vf = p.flashChannelVariance[c], va = p.ambientChannelVariance[c]
                // Two factors: m, by weighted least squares over the whole line (`structure`: how well
                // one factor explains the line), and the robust m̃, from the median of the blocks'
                // F/A and then least squares over the blocks within 4 standard deviations of it, which
                // a minority lit by the flash does not move (`brightExcess`, `ambientScale`).
                func leastSquares(from start: Double, within limit: Double) -> Double {
                    var m = start
                    for _ in 0..<2 {
                        var saa = 0.0, sfa = 0.0
                        for j in index {
                            let v = max(1e-30, vf[j] + m * m * va[j]), e = f[j] - m * a[j]
                            guard e * e < limit * v else { continue }
                            saa += a[j] * a[j] / v; sfa += f[j] * a[j] / v
                        }
                        guard saa > 0 else { break }
                        m = sfa / saa
                    }
                    return m
                }
                var saa = 0.0, sfa = 0.0
                for j in index { saa += a[j] * a[j]; sfa += f[j] * a[j] }
                guard saa > 0 else { continue }
                let m = leastSquares(from: sfa / saa, within: .infinity)
                ratios.removeAll(keepingCapacity: true)
                for j in index { ratios.append(Float(f[j] / a[j])) }
                let robust = leastSquares(from: Double(ratios.withUnsafeMutableBufferPointer { $0.partitionAtMedian($0.count / 2) }),
                                          within: 16)
                let dof = Double(index.count) / Double(index.count - 1)
                var previous = (block: Int.min, residual: 0.0, variance: 0.0)  // (no block before the line's first)
                for j in index {
                    let e = f[j] - m * a[j], v = max(1e-30, vf[j] + m * m * va[j])
                    squares.append(Float(e * e / v * dof))
                    if previous.block == j - neighbour {
                        let d = e - previous.residual
                        differences.append(Float(d * d / (v + previous.variance)))
                    }
                    previous = (j, e, v)
                    let r = f[j] - robust * a[j]
                    if r * r > 16 * max(1e-30, vf[j] + robust * robust * va[j]) { if r > 0 { bright += 1 } else { dark += 1 } }
                }
                scales[c].append(Float(robust))
            }
        }
        guard blocks >= p.width * p.height / 4, !squares.isEmpty, !differences.isEmpty, scales.allSatisfy({ !$0.isEmpty }) else {
            return nil
        }
        func median(_ v: inout [Float]) -> Double {
            Double(v.withUnsafeMutableBufferPointer { $0.partitionAtMedian($0.count / 2) })
        }
        let medianSquare = median(&squares)
        return FlashLightPresence(structure: medianSquare / chiSquareOneMedian,
                                  ambientScale: SIMD3(median(&scales[0]), median(&scales[1]), median(&scales[2])),
                                  neighbourStructure: medianSquare / max(1e-30, median(&differences)),
                                  brightExcess: Double(bright - dark) / Double(squares.count), blockCount: blocks)
    }
}
