import Testing
@testable import ConstantColor

/// The words of `fuse`'s warnings.
@Suite struct FusionWarningsTests {
    /// Stage 4c's shifts: one region's alone; regions of one object that share a shift said once with
    /// their count (the line had listed "(+22, +10), (+22, +10), (+22, +10), …"); distinct shifts in
    /// order of the largest region, at most three, then how many regions the others hold.
    @Test func displacementsAreSaidOncePerShift() {
        #expect(FusionWarnings.displacementSummary([[22.3, 9.6]]) == "(+22, +10) pixels")
        #expect(FusionWarnings.displacementSummary([[22, 10], [21.8, 10.2], [22, 10], [22.4, 9.7]]) == "(+22, +10) pixels in 4 of them")
        #expect(FusionWarnings.displacementSummary([[22, 10], [-5, 2], [22, 10]]) == "(+22, +10) pixels in 2 of them, (-5, +2) in 1")
        #expect(FusionWarnings.displacementSummary([[1, 0], [2, 0], [3, 0], [4, 0], [4, 0], [5, 0]])
                == "(+1, +0) pixels in 1 of them, (+2, +0) in 1, (+3, +0) in 1, other shifts in 3")
        #expect(FusionWarnings.displacementSummary([]) == "no shift")
    }

    /// A registration residual above the mismatch level asks whether the frames are of one scene, and
    /// names the uniform surface with a shadow, which reads as high with frames that match (a grey
    /// card: 0.66).
    @Test func mismatchedFramesLineNamesTheUniformSurface() {
        let line = FusionWarnings.mismatchedFramesLine(residual: 0.66)
        #expect(line.hasPrefix("warning: the registered frames leave 66 % of the flash frame's structure unexplained (registration residual 0.66;"))
        #expect(line.contains("is the ambient frame of the same scene, or rotated or mirrored?")
                && line.contains("A nearly uniform surface (a grey card, a page) with an ambient shadow on it gives this too"))
        #expect(FusionWarnings.mismatchedFramesLine(residual: .infinity).contains("leave all of the flash frame's structure unexplained (registration residual not measurable;"))
    }

    /// A ratio no shadow edge checked is said where the ambient light is a share of the flash frame
    /// that a wrong tag would leave visible (a pair without cast shadow, its flash frame's shutter
    /// 1.3× its tag, fused `constantColor` 3.7 ΔE00 off with nothing said); not where edges measured
    /// it, where the ambient light is a few per cent, or where no flash light was measured.
    @Test func uncheckedRatioIsSaid() {
        let unchecked = AmbientRatioEstimate.metadata(height: 10, uncertainty: 0.04)
        func light(_ scale: Double, fired: Bool = true) -> FusionReport.FlashLightReport {
            FusionReport.FlashLightReport(structure: 30, neighbourStructure: 10, ambientScale: [scale, scale, scale], brightExcess: 0.2,
                                          noFlashLight: !fired)
        }
        let line = FusionWarnings.uncheckedRatioLine(unchecked, flashLight: light(3))
        #expect(line?.hasPrefix("warning: no ambient shadow edge was found to check the frames' exposure tags: the ambient light, about 33 % of the flash frame's, is subtracted at the ratio the exposure tags (or --flash-exposure / --ambient-exposure) give (±4 %") == true,
                "\(line ?? "nil")")
        #expect(line?.contains("too few surfaces were large and even enough for their colours to check it. A tag that is not its capture's (another shutter time or ISO) leaves ambient light in the result, and the confidence cannot see it") == true)
        // The surfaces' colours agree with the tags, or contradict them (`SurfaceColourRatio`).
        var agreed = unchecked
        agreed.surfaceColourRatio = SurfaceColourRatio(ratio: 1.012, standardError: 0.007, groupCount: 65, cellCount: 14_000)
        let agreeing = FusionWarnings.uncheckedRatioLine(agreed, flashLight: light(3))
        #expect(agreeing?.contains("give (±4 %, which the confidence counts), and the surfaces' colours agree with them: 1.01× the tags' (±0.7 %, from 65 surfaces). They tell a wrong tag only where the ambient light's colour is not the flash's") == true,
                "\(agreeing ?? "nil")")
        var imprecise = unchecked
        imprecise.surfaceColourRatio = SurfaceColourRatio(ratio: 1.10, standardError: 0.0638, groupCount: 12, cellCount: 3_000)
        #expect(FusionWarnings.uncheckedRatioLine(imprecise, flashLight: light(3))?.contains("and the surfaces' colours do not contradict them, though they are less precise: 1.10× the tags' (±5.8 %, from 12 surfaces)") == true)
        let contradicted = agreed.checked(bySurfaceColours: SurfaceColourRatio(ratio: 1.32, standardError: 0.008, groupCount: 65, cellCount: 14_000),
                                          metadataUncertainty: 0.04)
        let contradicting = FusionWarnings.uncheckedRatioLine(contradicted, flashLight: light(3))
        #expect(contradicting?.contains("give, but the surfaces' colours put it at 1.32× the tags' (±0.6 %, from 65 surfaces): is a tag not its capture's (another shutter time or ISO)? The ratio subtracted stays the tags', and the confidence counts the difference (±32 %)") == true,
                "\(contradicting ?? "nil")")
        #expect(FusionWarnings.uncheckedRatioLine(unchecked, flashLight: light(40)) == nil)  // 2.5 %: a 10 lux pair
        #expect(FusionWarnings.uncheckedRatioLine(unchecked, flashLight: light(3, fired: false)) == nil)
        #expect(FusionWarnings.uncheckedRatioLine(unchecked, flashLight: nil) == nil)
        var measured = unchecked
        measured.edgeRatio = 1.02; measured.edgeRelativeUncertainty = 0.01
        #expect(FusionWarnings.uncheckedRatioLine(measured, flashLight: light(3)) == nil)
        var beyond = unchecked
        beyond.edgeRatioBeyondRange = 2.5
        #expect(FusionWarnings.uncheckedRatioLine(beyond, flashLight: light(3)) == nil)
        var edges = measured
        edges.source = .illuminationEdges
        #expect(FusionWarnings.uncheckedRatioLine(edges, flashLight: light(3)) == nil)
    }

    /// Edges that contradict EXIF less precisely than EXIF states its own: EXIF's ratio is taken with
    /// the difference as its uncertainty (`AmbientRatioEstimate.combined`), and now said; edges that
    /// carry weight, an EXIF stated exact, or a metadata-mode contradiction (said by its own line)
    /// give no such line.
    @Test func edgesOverruledByEXIFAreSaid() {
        let (ratio, sigma, weight) = AmbientRatioEstimate.combined(metadataUncertainty: 0.04, edgeRatio: 1.3336, edgeStandardError: 0.0473)
        #expect(ratio == 1 && weight == 0 && abs(sigma - 0.3336) < 1e-12)
        var overruled = AmbientRatioEstimate.metadata(height: 10, uncertainty: 0.04)
        overruled.source = .illuminationEdges
        overruled.edgeRatio = 1.3336; overruled.edgeRelativeUncertainty = 0.0354; overruled.edgeSampleCount = 64
        overruled.edgeWeight = weight; overruled.relativeUncertainty = sigma
        let line = FusionWarnings.edgesOverruledLine(overruled)
        #expect(line == "warning: the ambient shadow edges put the exposure ratio at 1.334× EXIF's (±3.5 %, from 64 profiles), further from it than both uncertainties allow and less precisely than EXIF's: EXIF's ratio is subtracted, and its uncertainty is the difference, 33 %, which the confidence counts wherever the ambient light matters (edges between materials or highlights taken for shadow edges? A tag off? --flash-exposure / --ambient-exposure set the true exposures)",
                "\(line ?? "nil")")
        var weighed = overruled
        weighed.edgeWeight = 0.6
        #expect(FusionWarnings.edgesOverruledLine(weighed) == nil)
        var exact = overruled
        exact.relativeUncertainty = 0
        #expect(FusionWarnings.edgesOverruledLine(exact) == nil)
        var metadataMode = overruled
        metadataMode.metadataContradiction = 1.3336
        #expect(FusionWarnings.edgesOverruledLine(metadataMode) == nil)
        var noEdges = overruled
        noEdges.source = .metadata
        #expect(FusionWarnings.edgesOverruledLine(noEdges) == nil)
    }
}
