import Foundation

/// Warnings about a fused pair whose result is computed but may be wrong or unmeasured (what the
/// pipeline measured says the inputs are not what the profiles describe): `FusionPipeline.run` puts
/// them in the report's `warnings`; `fuse` and `validate` say them naming the camera profile's file.
package enum FusionWarnings {
    /// Registration residual above which the frames may not show the same scene alike: 0.12–0.30
    /// on the fixtures' pairs (lighting differs between the frames, most at 10 lux), 0.53–0.71 on an
    /// ambient frame rotated by 180°.
    package static let mismatchedFramesResidual = 0.5

    /// Stage 4c's displacements (pixels, largest region first) in words: each distinct one rounded to
    /// whole pixels, with how many regions share it where there are several, at most `listed` of
    /// them ("(+22, +10) pixels in 3 of them, (+5, −2) in 1"): regions of one moved object share
    /// their shift, and a list that repeats it says less than its count.
    package static func displacementSummary(_ displacements: [[Double]], listed: Int = 3) -> String {
        var distinct: [(shift: SIMD2<Int>, count: Int)] = []
        for d in displacements where d.count == 2 {
            let shift = SIMD2(Int(d[0].rounded()), Int(d[1].rounded()))
            if let i = distinct.firstIndex(where: { $0.shift == shift }) { distinct[i].count += 1 } else { distinct.append((shift, 1)) }
        }
        guard let first = distinct.first else { return "no shift" }
        func text(_ s: SIMD2<Int>) -> String { String(format: "(%+d, %+d)", s.x, s.y) }
        guard displacements.count > 1 else { return text(first.shift) + " pixels" }
        let shown = distinct.prefix(listed).enumerated().map { i, d in
            text(d.shift) + (i == 0 ? " pixels in \(d.count) of them" : " in \(d.count)")
        }
        let rest = distinct.dropFirst(listed).reduce(0) { $0 + $1.count }
        return shown.joined(separator: ", ") + (rest > 0 ? ", other shifts in \(rest)" : "")
    }

    /// One line per problem, in the order a user can act on them: the noise model, the frames'
    /// channel scales, their exposure tags, their levels, what was measured, the registration.
    /// `cameraPath` names the camera profile in them (its file, or a name), with its levels.
    package static func lines(_ result: FusionResult, cameraPath: String, blackLevel: Double, whiteLevel: Double) -> [String] {
        var lines: [String] = []
        let clipped = result.report.clippedFraction
        if let scale = result.ambientRatio.edgeMisfitScale, scale > AmbientRatioEstimate.understatedNoiseMisfitScale {
            lines.append("warning: the ambient edges' residuals are \(String(format: "%.1f", scale))× what \(cameraPath)'s noise model predicts: it understates these frames' noise (a calibration from raw frames used on demosaiced ones?) and the confidence map then claims too much; or most shadow edges lie on texture")
        }
        let k = result.ambientRatio.channelScale
        if k != SIMD3(1, 1, 1) {
            lines.append("warning: ambient shadow edges vanish from the flash frame at different exposure ratios per channel (red ×\(String(format: "%.3f", k.x)), blue ×\(String(format: "%.3f", k.z)) of green's): the two frames' channels are not on one scale — developed with different white balance multipliers or colour matrices? Linear camera RGB from one development is required; the ambient channels were rescaled to the flash frame's, which is right only if the flash frame was developed as the calibration chart was")
        }
        // A flash frame darker than its tags predict (the block scales below): where the shadow edges
        // it lacks say the same (`IlluminationEdgeRatio.vanishedEdges`), that line alone is said.
        let flashFrameDarker = result.report.flashLight?.holdsLessAmbientThanTags ?? false
        let vanished = result.ambientRatio.edgeRatioBeyondRangeFromVanishedEdges
        // Where the ambient light is under `beyondRangeAmbientShare` of the flash frame even at the
        // edges' own ratio (`far` over the flash frame's scale of the ambient frame at the tags'), the
        // edges' bends are the flash's fall-off residue more than the ambient light's (a 50 000 lux
        // flash at 200 lux, tags right: 3.72× EXIF's "measured", 1.4 % of the flash frame at that
        // ratio, the colours and confidence right): not said. A tag 100× off keeps its line: the
        // share at the edges' ratio is then most of the frame.
        let edgesShare = result.ambientRatio.edgeRatioBeyondRange.flatMap { far in
            (result.report.flashLight?.ambientScale[1]).map { far / max($0, 1e-12) } }
        if let far = result.ambientRatio.edgeRatioBeyondRange, !(vanished && flashFrameDarker),
           (edgesShare ?? 1) >= beyondRangeAmbientShare {
            lines.append("warning: \(result.ambientRatio.edgeSampleCountBeyondRange) ambient shadow edges put the ambient-to-flash exposure ratio at \(String(format: "%.2f", far))× EXIF's, beyond the ±\(Int((AmbientRatioEstimate.searchedRelativeRange * 100).rounded())) % the estimate searches: \(vanished ? "the flash frame holds the ambient frame's shadows far weaker (its light dimmed between the frames?), or " : "")the frames' exposure tags are far off (tags of other captures?); the ratio stays EXIF's with that error counted, so the confidence is low wherever the ambient light matters (--flash-exposure / --ambient-exposure set the true exposures)")
        }
        // `--exposure-ratio metadata`: EXIF's ratio kept as asked, where the images contradict it.
        if let measured = result.ambientRatio.metadataContradiction {
            lines.append("warning: the ambient shadow edges put the ambient-to-flash exposure ratio at \(String(format: "%.3f", measured))× EXIF's (±\(String(format: "%.1f", 100 * (result.ambientRatio.edgeRelativeUncertainty ?? 0))) %), which EXIF's stated uncertainty does not cover; EXIF's ratio is subtracted as --exposure-ratio metadata asks, and the confidence counts the difference wherever the ambient light matters (--exposure-ratio estimate subtracts the measured one)")
        }
        if !result.ambientRatio.uncompensatedBanding.isEmpty {
            let components = result.ambientRatio.uncompensatedBanding.map {
                String(format: "%.2f cycles per frame, amplitude %.1f %%", $0.cyclesPerFrameHeight, 100 * $0.amplitude)
            }.joined(separator: "; ")
            lines.append("warning: the flash frame holds flicker banding (\(components)), which --exposure-ratio metadata leaves in the dark-room image; the confidence counts it wherever the ambient light matters (--exposure-ratio estimate removes it)")
        }
        if let excess = result.ambientRatio.rowBandExcessVariance {
            let columns = result.ambientRatio.readoutAxis == .columns
            let bands = result.ambientRatio.edgeRatioByRowBand.map { $0.map { String(format: "%.3f", $0) } ?? "-" }.joined(separator: ", ")
            lines.append("warning: ambient shadow edges put the exposure ratio at \(bands) (× EXIF's, \(columns ? "left to right" : "top to bottom")) in bands of \(columns ? "columns (the sensor's readout lines)" : "rows"), further apart than their errors allow: the flicker banding is not what its model describes (a flicker slower than a cycle per frame beside a light that varies \(columns ? "across" : "down") it?); its \(columns ? "columns" : "rows") may be off by \(String(format: "%.1f", 100 * excess.squareRoot())) %, which the confidence counts wherever the ambient light matters")
        }
        if let line = edgesOverruledLine(result.ambientRatio) { lines.append(line) }
        if let excess = result.ambientRatio.edgeChannelExcessVariance {
            let channels = result.ambientRatio.edgeRatioByChannel.map { $0.map { String(format: "%.3f", $0) } ?? "-" }.joined(separator: ", ")
            let deviation = result.ambientRatio.edgeChannelDeviation.map { d in
                "; beyond the \(String(format: "%.0f", 100 * AmbientRatioEstimate.channelScaleLimit)) % from the channels' mean that they read apart by under one light, the ambient light's colour in the flash frame is not the ambient frame's (it changed between the frames? Under a narrow-band light, borders between materials that pass for shadow edges read apart too), and the confidence counts the ratio off by "
                    + [d.x, d.y, d.z].map { String(format: "%+.0f", 100 * $0) }.joined(separator: ", ") + " % (red, green, blue) as well"
            } ?? ""
            lines.append("warning: the ambient shadow edges put the exposure ratio at \(channels) (× EXIF's; red, green, blue), further apart than their errors allow: not all of them are edges of the ambient light alone (edges between materials under a coloured light?), or the channels differ in blur or scale; the ratio may be off by about \(String(format: "%.1f", 100 * excess.squareRoot())) % beyond the edges' noise, and its stated uncertainty, now \(String(format: "%.1f", 100 * result.ambientRatio.relativeUncertainty)) %, counts it, as the confidence does wherever the ambient light matters\(deviation)")
        }
        // Flash light only adds: a flash frame holding less ambient light than its tags predict, beyond
        // the searched range, has tags that are not the captures' (swapped between the frames?). The
        // shadow edges say so themselves where they measure a ratio (the warning above).
        if let light = result.report.flashLight, flashFrameDarker, result.ambientRatio.edgeRatioBeyondRange == nil || vanished {
            lines.append("warning: the flash frame holds \(String(format: "%.2f", light.ambientScale[1]))× the ambient light its exposure tags predict (the scale of the ambient frame that most of each line's blocks show; flash light can only add to it): the frames' exposure tags are far off — swapped between the frames, or of other captures? (--flash-exposure / --ambient-exposure set the true exposures); pixels where the ambient frame's share exceeds the flash frame have confidence 0\(vanished ? "; its shadow edges read the ratio at " + String(format: "%.2f", result.ambientRatio.edgeRatioBeyondRange ?? 0) + "× EXIF's: or the ambient light dimmed between the frames (a lamp turned down?)" : "")")
        }
        if let error = result.ambientRatio.ambientColourChangeError, let agreeing = result.ambientRatio.edgeChannelAgreement {
            let percent = [error.x, error.y, error.z].map { String(format: "%+.0f", 100 * $0) }.joined(separator: ", ")
            // Where the noise model understates the frames' noise (the first line), the channels'
            // agreement is judged against too little noise, and that is the likelier cause.
            let understated = (result.ambientRatio.edgeMisfitScale ?? 0) > AmbientRatioEstimate.understatedNoiseMisfitScale
            let cause = understated
                ? "the camera profile's noise model understates these frames' noise (the first warning), so the channels' ratios are judged against too little noise; or the ambient light changed colour between the frames"
                : "the ambient light changed colour between the frames (a lamp switched on or off?), or they were developed unlike each other"
            lines.append("warning: only \(String(format: "%.0f", 100 * agreeing)) % of the ambient shadow edges vanish from the flash frame at one exposure ratio in every channel (70–99 % on the test sets' pairs, whose frames hold the same ambient light; under \(String(format: "%.0f", 100 * AmbientRatioEstimate.ambientColourChangeAgreement)) %, with the channels' ratios apart, is taken for a change): \(cause); no one ratio takes it out of the flash frame, and the confidence counts the ratio off by \(percent) % (red, green, blue) wherever the ambient light matters")
        }
        // (Where the output is the flash frame's rendering, nothing was subtracted: other lines say why.)
        if result.report.rendering.exposureSource == .darkRoom,
           let line = uncheckedRatioLine(result.ambientRatio, flashLight: result.report.flashLight) { lines.append(line) }
        if let noise = result.ambientRatio.noiseConsistency, noise.disagrees {
            let consequence = result.ambientRatio.source == .metadata
                ? "no shadow edge measured the exposure ratio, so EXIF's is counted as uncertain by that factor and the confidence is low wherever the ambient light matters (--flash-exposure / --ambient-exposure set the true exposures)"
                : "the shadow edges measured the exposure ratio, which stands; a frame denoised by its converter also does this, and the confidence then misjudges its noise"
            lines.append("warning: the ambient frame's pixel noise is \(String(format: "%.3g", noise.relativeScale))× what its ISO tag predicts relative to the flash frame's: the frames' ISO tags are not both the captures' (one typed wrong, or taken from another capture?); \(consequence)")
        }
        // A frame whose samples pile up at one value below the clipping level: the data saturate there.
        for (frame, plateaus) in [("flash", clipped.flashSaturationBelowWhite), ("ambient", clipped.ambientSaturationBelowWhite)] {
            guard let plateaus, !plateaus.isEmpty else { continue }
            let channels = plateaus.map {
                "\(["red", "green", "blue"][$0.channel]) at \(String(format: "%.6g", $0.levelDN)) DN (\(String(format: "%.2g", 100 * $0.fraction)) %)"
            }.joined(separator: ", ")
            let clipFrom = blackLevel + ExposureNormalization.clippingFraction * (whiteLevel - blackLevel)
            lines.append("warning: the \(frame) frame's pixels pile up at one value below \(cameraPath)'s white level \(String(format: "%.6g", whiteLevel)) (clipping counted from \(String(format: "%.6g", clipFrom)) DN): \(channels); the sensor or raw converter saturates there, and those pixels are taken as clipped (confidence 0). Give the camera profile the white level the data clip at")
        }
        // Pixels far below the black level are no measurement of any light: more than a few say
        // the black level is not these files' (subtracted already by a raw converter?).
        let below = max(clipped.flashBelowBlack, clipped.ambientBelowBlack)
        if below > 0.01 && clipped.either <= 0.5 {
            lines.append("warning: \(String(format: "%.1f", 100 * below)) % of a frame's pixels lie far below \(cameraPath)'s black level \(Int(blackLevel)) (flash \(String(format: "%.1f", 100 * clipped.flashBelowBlack)) %, ambient \(String(format: "%.1f", 100 * clipped.ambientBelowBlack)) %): the black level is not these files' (already subtracted by a raw converter?); every level is then off, and those pixels have confidence 0")
        }
        // Most of a frame clipped (at the white level, or far below black) says more about the
        // inputs than the rendering does: a profile for other files, or an overexposed frame.
        if clipped.either > 0.5 {
            let consequence = switch result.report.rendering.exposureSource {
            case .darkRoom: "those pixels have confidence 0"
            case .flashFrame: "the output is the flash frame's rendering, with confidence 0"
            case .none: "the output is black"
            }
            lines.append("warning: \(String(format: "%.0f", 100 * clipped.either)) % of the pixels are clipped (at the black or white level) in a frame (flash \(String(format: "%.0f", 100 * clipped.flash)) %, ambient \(String(format: "%.0f", 100 * clipped.ambient)) %): is \(cameraPath) for these files (bit depth, black and white level), or are they overexposed? \(consequence.prefix(1).uppercased() + consequence.dropFirst())")
        } else {
            switch result.report.rendering.exposureSource {
            case .darkRoom: break
            case .flashFrame:
                // (A flash frame darker than the tags predict is the frames swapped or one capture twice
                // as often as an unfired flash: the general line below says so.)
                if let light = result.report.flashLight, light.noFlashLight, light.ambientScale[1] > 1 {
                    lines.append(unfiredFlashLine(light, result.ambientRatio, cameraPath: cameraPath))
                } else {
                    lines.append("warning: no pixel measured flash light (the flash frame is nowhere brighter than the ambient frame's share of it): are the frames swapped, one capture given twice, or did the flash not fire? The output is the flash frame's rendering, with confidence 0")
                }
            case .none:
                lines.append("warning: neither frame has a usable pixel above \(cameraPath)'s black level \(Int(blackLevel)): is this profile for these files (bit depth, black level)? The output is black")
            }
        }
        // Something moved between the frames: there is no measurement where it was.
        if let moved = result.report.frameDisagreement, moved.regionCount > 0 {
            lines.append("warning: the flash frame does not hold the ambient frame's structure in \(moved.regionCount) region\(moved.regionCount == 1 ? "" : "s") (\(String(format: "%.2g", 100 * moved.pixelFraction)) % of the frame), and shows it displaced by \(displacementSummary(moved.displacementsPixels)): something moved between the frames (or the ambient light changed there between them, e.g. a flickering lamp beside another); those pixels have confidence 0 and show the flash frame")
        }
        // The share of the flash frame's feature energy the registered ambient frame leaves unexplained.
        let registration = result.report.registration
        let residual = registration.residual
        if registration.notRegistered == .noSharedStructure {
            lines.append("warning: the frames share no structure registration can align (at the best alignment found their features correlate by \(String(format: "%.2f", registration.featureCorrelation ?? 0)), no more than noise reaches over these samples): they are taken as aligned, as captured. A uniform surface (a grey card, a blank page) gives this, and then needs no alignment; so does an ambient frame of another scene, or rotated or mirrored, which the confidence counts only where it leaves edges")
        } else if registration.notRegistered == nil && residual > mismatchedFramesResidual {
            lines.append(mismatchedFramesLine(residual: residual))
        }
        return lines
    }

    /// The line for a registration residual above `mismatchedFramesResidual`. A nearly uniform
    /// surface with an ambient shadow on it reads as high (a grey card: 0.66, its colours right at
    /// confidence 0.94): the flash frame's structure there is the flash's fall-off, the ambient
    /// frame's the shadow, and neither explains the other; the line says so beside the question.
    static func mismatchedFramesLine(residual: Double) -> String {
        "warning: the registered frames leave \(residual.isFinite ? String(format: "%.0f %%", 100 * residual) : "all") of the flash frame's structure unexplained (registration residual \(residual.isFinite ? String(format: "%.2f", residual) : "not measurable"); well-matched pairs stay below \(mismatchedFramesResidual)): is the ambient frame of the same scene, or rotated or mirrored? A nearly uniform surface (a grey card, a page) with an ambient shadow on it gives this too: its only structure is the flash's fall-off in one frame and the shadow in the other. The confidence counts the mismatch only where it leaves edges"
    }

    /// The least share of the flash frame's light that is ambient (its median block's, at the ratio
    /// the edges read) for which the edges' reading of a ratio beyond the searched range is said:
    /// 2 % (below it a tag that far off moves the dark-room image by under 2 % of itself).
    static let beyondRangeAmbientShare = 0.02

    /// The least share of the flash frame's light that is ambient (its median block's, at EXIF's
    /// ratio) for which `uncheckedRatioLine` speaks: there a tag 20 % off moves the dark-room image
    /// by 1 % of itself along the ambient light's colour.
    static let uncheckedRatioAmbientShare = 0.05

    /// Where the shadow edges measured a ratio that contradicts EXIF's, less precisely than EXIF
    /// states its own (`AmbientRatioEstimate.combined`: EXIF's taken, its uncertainty the
    /// difference): said, with the uncertainty counted. Before, only the confidence fell: a sodium
    /// lamp's scene with the flash's highlights as its only edges read 1.33× EXIF's at ±3.5 %, and
    /// the pair fused at ±34 % with no word of why (a probe, session 50). Nil otherwise.
    static func edgesOverruledLine(_ ratio: AmbientRatioEstimate) -> String? {
        guard ratio.source == .illuminationEdges, ratio.edgeWeight == 0, let edge = ratio.edgeRatio,
              ratio.edgeRatioBeyondRange == nil, ratio.metadataContradiction == nil,
              ratio.relativeUncertainty >= 0.99 * abs(edge - 1), abs(edge - 1) > 0 else { return nil }
        return "warning: the ambient shadow edges put the exposure ratio at \(String(format: "%.3f", edge))× EXIF's (±\(String(format: "%.1f", 100 * (ratio.edgeRelativeUncertainty ?? 0))) %, from \(ratio.edgeSampleCount) profiles), further from it than both uncertainties allow and less precisely than EXIF's: EXIF's ratio is subtracted, and its uncertainty is the difference, \(String(format: "%.0f", 100 * ratio.relativeUncertainty)) %, which the confidence counts wherever the ambient light matters (edges between materials or highlights taken for shadow edges? A tag off? --flash-exposure / --ambient-exposure set the true exposures)"
    }

    /// The line for a ratio no shadow edge could check (`AmbientRatioEstimate.source` `.metadata`
    /// with no edge measured), where the ambient light is at least `uncheckedRatioAmbientShare` of
    /// the flash frame; nil otherwise (and where no flash light was measured: that line says more).
    /// It says what the surfaces' colours read (`SurfaceColourRatio`): where they contradict the
    /// tags, by how much, and that the confidence counts it; where they agree (or, less precise than
    /// the tags, do not contradict them), that they tell a wrong tag only where the ambient light's
    /// colour is not the flash's; where too few surfaces qualify,
    /// that nothing checked the tags (a scene without a cast shadow, the flash frame's shutter time
    /// 1.3× its tag, fused `constantColor` at 0.88 with colours 3.7 ΔE00 off, and nothing said,
    /// before either check).
    static func uncheckedRatioLine(_ ratio: AmbientRatioEstimate, flashLight: FusionReport.FlashLightReport?) -> String? {
        guard ratio.source == .metadata, ratio.edgeRatio == nil, ratio.edgeRatioBeyondRange == nil,
              let light = flashLight, !light.noFlashLight, light.ambientScale[1] > 0 else { return nil }
        let share = 1 / light.ambientScale[1]
        guard share >= uncheckedRatioAmbientShare else { return nil }
        let head = "warning: no ambient shadow edge was found to check the frames' exposure tags: the ambient light, about \(String(format: "%.0f", 100 * min(1, share))) % of the flash frame's, is subtracted at the ratio the exposure tags (or --flash-exposure / --ambient-exposure) give"
        let counted = " (±\(String(format: "%.0f", 100 * ratio.relativeUncertainty)) %, which the confidence counts)"
        let shadow = "a cast shadow of the ambient light in the frame lets the pair measure the ratio"
        guard let reading = ratio.surfaceColourRatio else {
            return head + counted + ", and too few surfaces were large and even enough for their colours to check it. A tag that is not its capture's (another shutter time or ISO) leaves ambient light in the result, and the confidence cannot see it; " + shadow
        }
        let read = "\(String(format: "%.2f", reading.ratio * ratio.baseRatio))× the tags' (±\(String(format: "%.1f", 100 * reading.standardError / reading.ratio)) %, from \(reading.groupCount) surfaces)"
        if ratio.surfaceColourContradiction != nil {
            return head + ", but the surfaces' colours put it at \(read): is a tag not its capture's (another shutter time or ISO)? The ratio subtracted stays the tags', and the confidence counts the difference (±\(String(format: "%.0f", 100 * ratio.relativeUncertainty)) %), so it falls wherever the ambient light moves the colour (a flash whose colour changes across the frame, with no shading map in its profile, can read so too); " + shadow
        }
        let verdict = reading.standardError / reading.ratio < ratio.relativeUncertainty
            ? "agree with them: \(read)" : "do not contradict them, though they are less precise: \(read)"
        return head + counted + ", and the surfaces' colours \(verdict). They tell a wrong tag only where the ambient light's colour is not the flash's; " + shadow
    }

    /// The line for a flash frame that is the ambient frame scaled (`FlashLightPresence`), naming the
    /// evidence it rests on: residuals within the camera profile's noise, or residuals without
    /// structure beside their neighbours though beyond that noise (the profile understates it); and
    /// no shadow edge measured, or edges that fit no better than that noise.
    static func unfiredFlashLine(_ light: FusionReport.FlashLightReport, _ ratio: AmbientRatioEstimate, cameraPath: String) -> String {
        let residual = String(format: "%.2f", light.structure.squareRoot())
        let evidence = light.structure < FlashLightPresence.absentStructure
            ? "within its noise (residual \(residual)× the noise's standard deviation, which a frame with flash light in it would exceed)"
            : "with residuals that have no structure (their median square \(String(format: "%.2f", light.neighbourStructure))× that of neighbouring blocks' differences, each over its variance; flash light, which varies smoothly over the frame, makes it larger) but are \(residual)× the standard deviation \(cameraPath)'s noise model states: it understates these frames' noise"
        let edgesMeasured = ratio.source == .illuminationEdges || ratio.edgeRatioBeyondRange != nil
        let edges = edgesMeasured
            ? "the shadow edges found fit no better than noise (their residuals \(String(format: "%.1f", ratio.edgeMisfitScale ?? .nan))× the noise model's)"
            : "no shadow edge measured flash light"
        return "warning: no flash light was measured: the flash frame is the ambient frame scaled by \(String(format: "%.3f", light.ambientScale[1]))× the exposure tags' ratio in every channel, line by line, \(evidence), and \(edges). Did the flash fire, and are both frames' exposure tags (or --flash-exposure / --ambient-exposure) the captures'? (A flash whose light cannot be told from the ambient light here — of its colour on every surface, with no shadow or fall-off of its own across the frame — gives this too: the pair cannot then show which light is which.) The output is the flash frame's rendering, with confidence 0"
    }
}
