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
/// Measured on stage 4a's reduced pair (`ReducedFramePair`, block means about 200 lines high, with
/// the noise models' variances): per line and channel, the factor `m` that best explains `F` by `A`
/// (weighted least squares, errors in both), and the standardized residuals
/// `z = (F − m·A)/√(σ²_F + m²σ²_A)`. `structure` is their median `z²` over the χ²(1) median 0.455:
/// about 1 where F is a scaled A within the noise (edges, shake and a moved object touch a minority
/// of the blocks and leave the median), far above where flash light is measured — unless the
/// frames' noise is understated by the camera profile. Lines along both axes (rows and columns),
/// the smaller taken: the readout may run along either.
public struct FlashLightPresence: Sendable, Equatable {
    /// The median standardized residual² of the flash frame about the scaled ambient frame, over the
    /// χ²(1) median (1: noise only).
    public var structure: Double
    /// Per channel (red, green, blue), the median over lines of the fitted factor `m`, × the exposure
    /// tags' ratio: how much more ambient exposure the flash frame holds than the tags say.
    public var ambientScale: SIMD3<Double>
    /// Blocks measured.
    public var blockCount: Int

    /// `structure` below which the flash frame may be a scaled ambient frame: the residuals at most
    /// twice the noise model's standard deviation (an understated noise model is allowed for up to
    /// that factor). Measured (`fuse` on 600 × 400 `synth` renders, Nikon profile): 1.05–1.08 for a
    /// flash that did not fire, whatever the exposure tags; 6.9–85 on the committed fixtures and
    /// 10.3–35 on the 90 hard conditions; 1.1–2.8 under flashes of 2–10 lux against 200–800 lux of
    /// ambient light (mean confidence 0.003–0.10), which the other conditions keep unflagged (shadow
    /// edges measured, channel scales apart, or a scale within the tags' uncertainty).
    public static let absentStructure = 4.0

    /// How far apart the channels' scales may be for one exposure's: an exposure error (time, gain,
    /// aperture) scales every channel alike, while flash light adds its own colour. A uniform flash on
    /// a flat scene under uniform ambient light leaves `F_c ∝ A_c` too, channel by channel, but with
    /// `m_c` apart by the two lights' colour difference (the CLI tests' hand-made pair: 9, 14 and 18).
    public static let channelScaleAgreement = 0.02

    /// Whether no flash light was measured: the flash frame is the ambient frame scaled within its
    /// noise (`absentStructure`), by one factor in every channel (`channelScaleAgreement`), no
    /// ambient shadow edge showed flash light beside it (`edgesMeasured` false: an illumination edge
    /// is one where `F/A` exceeds the edge's ratio), and the scale is off the exposure tags' by more
    /// than their stated relative uncertainty `tagUncertainty` — so that `D = (m − r)·A` would be
    /// taken for flash light. (A scale within it leaves D small against its uncertainty, and the
    /// confidence low.)
    public func indicatesNoFlashLight(edgesMeasured: Bool, tagUncertainty: Double) -> Bool {
        let m = ambientScale.y
        let channelsAgree = m > 0 && abs(ambientScale.x / m - 1) < Self.channelScaleAgreement
            && abs(ambientScale.z / m - 1) < Self.channelScaleAgreement
        return structure < Self.absentStructure && channelsAgree && !edgesMeasured && abs(m - 1) > tagUncertainty
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
        var squares: [Float] = [], scales: [[Float]] = [[], [], []]
        squares.reserveCapacity(3 * p.width * p.height)
        var index = [Int](), blocks = 0
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
                // m by least squares, then twice reweighted by each block's residual variance.
                var saa = 0.0, sfa = 0.0
                for j in index { saa += a[j] * a[j]; sfa += f[j] * a[j] }
                guard saa > 0 else { continue }
                var m = sfa / saa
                for _ in 0..<2 {
                    saa = 0; sfa = 0
                    for j in index {
                        let w = 1 / max(1e-30, vf[j] + m * m * va[j])
                        saa += w * a[j] * a[j]; sfa += w * f[j] * a[j]
                    }
                    m = sfa / saa
                }
                for j in index {
                    let e = f[j] - m * a[j]
                    squares.append(Float(e * e / max(1e-30, vf[j] + m * m * va[j])))
                }
                scales[c].append(Float(m))
            }
        }
        guard blocks >= p.width * p.height / 4, !squares.isEmpty, scales.allSatisfy({ !$0.isEmpty }) else { return nil }
        func median(_ v: inout [Float]) -> Double {
            Double(v.withUnsafeMutableBufferPointer { $0.partitionAtMedian($0.count / 2) })
        }
        return FlashLightPresence(structure: median(&squares) / chiSquareOneMedian,
                                  ambientScale: SIMD3(median(&scales[0]), median(&scales[1]), median(&scales[2])), blockCount: blocks)
    }
}
