import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Options of the registration stage.
public struct RegistrationOptions: Sendable {
    /// The model to fit; `nil` fits them in order and keeps the simplest that explains the motion.
    public var model: MotionModel?
    /// The finest pyramid level used has at most this many pixels (larger images are aligned on a
    /// downsampled level; the estimate is still sub-pixel at full resolution).
    public var maximumWorkingPixels: Int
    /// At most this many strong-gradient pixels drive the Gauss–Newton iterations at each level.
    public var maximumSamplePixels: Int
    /// A richer model is kept only if it lowers the robust residual by at least this fraction.
    public var modelSelectionGain: Double

    /// Defaults: automatic model, 2 MP working level, 20 000 samples, 0.5 % residual gain.
    public init(model: MotionModel? = nil, maximumWorkingPixels: Int = 2_000_000,
                maximumSamplePixels: Int = 80_000, modelSelectionGain: Double = 0.005) {
        self.model = model
        self.maximumWorkingPixels = maximumWorkingPixels
        self.maximumSamplePixels = maximumSamplePixels
        self.modelSelectionGain = modelSelectionGain
    }
}

/// What registration found.
public struct RegistrationResult: Sendable {
    /// The chosen model.
    public var model: MotionModel
    /// Maps a point of the flash frame (continuous pixel coordinates, pixel (i, j) covering
    /// [i, i+1) × [j, j+1)) to the same scene point in the ambient frame.
    public var ambientFromFlash: Matrix3
    /// Robust RMS of the feature residual divided by the RMS of the flash features (0 = perfect).
    public var residual: Double
    /// The residual of every model that was fitted (automatic selection skips a model that
    /// cannot be chosen: see `Registration.register`).
    public var residualByModel: [MotionModel: Double]
    /// Why the frames were taken as aligned without registration (the identity), or nil where the
    /// fit was kept.
    public var notRegistered: NotRegisteredReason? = nil
    /// The correlation of the flash frame's features with the registered ambient frame's at the
    /// fit's samples (`Level.featureCorrelation`); nil where nothing was fitted.
    public var featureCorrelation: Double? = nil

    /// The displacement (ambient position − flash position) of a flash-frame point, in pixels.
    public func displacement(atX x: Double, y: Double) -> (dx: Double, dy: Double) {
        let p = ambientFromFlash * SIMD3(x, y, 1)
        return (p.x / p.z - x, p.y / p.z - y)
    }
}

/// Why `Registration.register` took the frames as aligned, as captured, instead of fitting a motion.
public enum NotRegisteredReason: String, Sendable, Codable {
    /// The ambient frame holds no light above its read noise (a dark room): nothing to align, and its
    /// alignment does not matter.
    case noAmbientLight
    /// The best fit found makes the frames' features correlate no more than noise would
    /// (`Registration.isSignificant`): a uniform surface (a grey card, a blank page) shows no
    /// structure to align, and an ambient frame of another scene (or turned) none that the flash
    /// frame shares. A fit there follows noise: 56 px on a noisy grey card.
    case noSharedStructure
}

/// Stage 3 of SPEC: aligns the ambient frame to the flash frame.
///
/// Method: coarse-to-fine Gauss–Newton (Lucas & Kanade 1981; forward-additive, Baker & Matthews
/// 2004) on high-passed per-channel log images, with a gain and offset fitted jointly (invariant to the
/// contrast change between the frames, cf. ECC, Evangelidis & Psarakis 2008) and Huber weights so
/// that moved shadows and specular highlights do not pull the estimate; an exhaustive integer
/// search at the coarsest level widens the capture range.
public enum Registration {
    /// Registers `ambient` to `flash` (same size). An ambient frame without light above its read noise
    /// is not registered: identity, with an infinite (unmeasured) residual.
    /// - Precondition: the frames have the same size (`FusionPipeline.checkInputs` checks a pair).
    public static func register(flash: LinearFrame, ambient: LinearFrame,
                                options: RegistrationOptions = RegistrationOptions()) -> RegistrationResult {
        precondition(flash.image.width == ambient.image.width && flash.image.height == ambient.image.height)
        let width = flash.image.width, height = flash.image.height
        // Per-channel pyramids; the working (finest used) level is the first with at most
        // maximumWorkingPixels pixels. Read noise is per sample; a k × k average divides its σ by k
        // for independent pixels, by less for correlated ones (`FrameNoise.blockVarianceFactor`,
        // the largest channel's).
        func readNoise(_ noise: FrameNoise, halvings h: Int) -> Float {
            let k = 1 << h
            return (noise.varianceOffset * noise.blockVarianceFactor(side: k).max()).squareRoot() / Float(k)
        }
        // Halvings from the frame to the working level: while the level is larger than the working
        // size and at least 64 pixels on its short side.
        var halvings = 0
        while (width >> halvings) * (height >> halvings) > options.maximumWorkingPixels,
              min(width >> halvings, height >> halvings) >= 64 { halvings += 1 }
        // A frame larger than the working size is halved (or quartered) straight from its planes, in
        // one pass and without full-size copies.
        func working(_ frame: LinearFrame) -> [GrayImage] {
            halvings == 0 ? RegistrationFeatures.channels(frame)
                          : RegistrationFeatures.reducedChannels(frame, halvings: min(halvings, 2))
        }
        var flashLevels = [working(flash)], ambientLevels = [working(ambient)]
        for _ in 2..<max(2, halvings) {
            flashLevels[0] = flashLevels[0].map { $0.downsampled2x() }
            ambientLevels[0] = ambientLevels[0].map { $0.downsampled2x() }
        }
        let readF = readNoise(flash.noise, halvings: halvings), readA = readNoise(ambient.noise, halvings: halvings)
        // An ambient frame with no light above its read noise (a dark room) has nothing to align, and
        // its alignment does not matter (its noise is all it adds to D): a fit would only follow the
        // noise. A frame with some lit samples (a lamp in a dark room) is registered.
        let lit = ambientLevels[0].map { Self.samplesAbove($0, Self.noSignalReadNoiseMultiple * readA) }.reduce(0, +)
        if lit < Self.litSamplesToRegister {
            // The identity, in the model asked for (every model holds it).
            return RegistrationResult(model: options.model ?? .translation, ambientFromFlash: .identity, residual: .infinity,
                                      residualByModel: [:], notRegistered: .noAmbientLight)
        }
        var levelReadF = [readF], levelReadA = [readA]
        while let last = flashLevels.last, min(last[0].width, last[0].height) >= 48 {
            flashLevels.append(last.map { $0.downsampled2x() })
            ambientLevels.append(ambientLevels.last!.map { $0.downsampled2x() })
            levelReadF.append(readNoise(flash.noise, halvings: halvings + levelReadF.count))
            levelReadA.append(readNoise(ambient.noise, halvings: halvings + levelReadA.count))
        }
        // Features of every level and frame, then the levels, in parallel (finest first, the largest jobs).
        let levelCount = flashLevels.count
        var features = [GrayImage?](repeating: nil, count: 2 * levelCount)
        features.withUnsafeMutableBufferPointer { buffer in
            let out = SharedMutableBuffer(buffer)
            let inputs = UncheckedSendableBox((flashLevels, ambientLevels, levelReadF, levelReadA))
            DispatchQueue.concurrentPerform(iterations: 2 * levelCount) { job in
                let (fl, al, rf, ra) = inputs.value
                let l = job / 2
                out[job] = job % 2 == 0 ? RegistrationFeatures.features(channels: fl[l], readNoiseStd: rf[l])
                                        : RegistrationFeatures.features(channels: al[l], readNoiseStd: ra[l])
            }
        }
        var builtLevels = [Level?](repeating: nil, count: levelCount)
        builtLevels.withUnsafeMutableBufferPointer { buffer in
            let out = SharedMutableBuffer(buffer)
            let inputs = UncheckedSendableBox(features)
            let samples = options.maximumSamplePixels
            DispatchQueue.concurrentPerform(iterations: levelCount) { l in
                out[l] = Level(template: inputs.value[2 * l]!, moving: inputs.value[2 * l + 1]!,
                               frameWidth: width, frameHeight: height, maximumSamples: samples)
            }
        }
        let levels = builtLevels.map { $0! }
        // Coarsest level: integer search, then the coarse model.
        // Coarse levels have too few pixels to pin down perspective terms: at most a similarity there.
        let coarseModel: MotionModel = options.model.map { $0 == .homography ? .similarity : $0 } ?? .rigid
        var warp = levels.last!.integerSearch(radius: 4).promoted(to: coarseModel)
        var photometric = (gain: 1.0, offset: 0.0)
        for l in stride(from: levels.count - 1, through: 1, by: -1) {
            (warp, photometric, _) = levels[l].fit(warp, photometric: photometric, iterations: 20)
        }
        // Working level: fit the candidates and choose.
        let finest = levels[0]
        var residuals: [MotionModel: Double] = [:]
        var chosen: (warp: NormalizedWarp, photometric: (gain: Double, offset: Double), cost: Double)
        if let model = options.model {
            let r = finest.fit(warp.promoted(to: model), photometric: photometric, iterations: 30)
            chosen = (r.0, r.1, r.2)
            residuals[model] = r.2
        } else {
            var best: (warp: NormalizedWarp, photometric: (gain: Double, offset: Double), cost: Double)? = nil
            // One Huber threshold for all candidates, so that their robust costs are comparable.
            let huber = finest.huberThreshold(warp, photometric: photometric)
            // Translation and rigid start from the coarse levels' estimate, which already holds any
            // rotation (a translation-only start would leave the richer fits far from it). Rigid is
            // fitted first: when pinning its angle at zero would cost far more than the selection
            // margin, translation cannot be chosen and is not fitted.
            let rigid = finest.fit(warp.promoted(to: .rigid), photometric: photometric, iterations: 30, huber: huber)
            let margin = options.modelSelectionGain
            if !finest.rotationClearlyPays(rigid.0, photometric: rigid.1, huber: huber, cost: rigid.2, margin: margin) {
                let r = finest.fit(warp.promoted(to: .translation), photometric: photometric, iterations: 30, huber: huber)
                residuals[.translation] = r.2
                best = (r.0, r.1, r.2)
            }
            residuals[.rigid] = rigid.2
            if best == nil || rigid.2 < best!.cost * (1 - margin) { best = (rigid.0, rigid.1, rigid.2) }
            // Similarity and homography start from the fit they extend, which is already near their
            // optimum; each is fitted only if the Gauss–Newton step from there predicts enough gain.
            var previous = rigid.0
            for model in [MotionModel.similarity, .homography] {
                let b = best!
                let extra = Double(model.parameterCount - b.warp.model.parameterCount)
                let start = previous.promoted(to: model)
                let photometricStart = b.warp.model == previous.model ? b.photometric : rigid.1
                guard finest.mayLowerCost(start, photometric: photometricStart, huber: huber,
                                          below: b.cost * (1 - margin * extra)) else { continue }
                let r = finest.fit(start, photometric: photometricStart, iterations: 30, huber: huber)
                previous = r.0
                residuals[model] = r.2
                if r.2 < b.cost * (1 - margin * extra) { best = (r.0, r.1, r.2) }
            }
            chosen = best!
        }
        // A fit the features' correlation does not support followed noise: the frames are taken as
        // captured, with the residual there.
        let (correlation, sampleCount) = finest.featureCorrelation(chosen.warp)
        if !isSignificant(correlation, samples: sampleCount) {
            let model = options.model ?? .translation
            let atIdentity = finest.fit(NormalizedWarp(model: model), photometric: chosen.photometric, iterations: 0)
            return RegistrationResult(model: model, ambientFromFlash: .identity, residual: atIdentity.2, residualByModel: residuals,
                                      notRegistered: .noSharedStructure, featureCorrelation: correlation)
        }
        return RegistrationResult(model: chosen.warp.model,
                                  ambientFromFlash: pixelMatrix(chosen.warp, width: width, height: height),
                                  residual: chosen.cost, residualByModel: residuals, featureCorrelation: correlation)
    }

    /// The least score `ρ·√(n/9)` of a fit's feature correlation ρ over its n samples that shows
    /// structure the frames share (`isSignificant`). The features are 3 × 3 means, so about one
    /// sample in nine is independent and white noise's correlation is about normal with standard
    /// deviation 1/√(n/9) (high-passed, a little less; demosaiced noise, correlated between
    /// pixels, more); the fit takes the best of the alignments it tries. Measured on pairs of noise
    /// alone: at most 2.7 (64 × 48 to 2000 × 1500, raw) and 3.85 (64 × 48, demosaiced, 12 seeds).
    /// Real pairs: the fixtures' tens to hundreds; a demosaiced 64 × 48 card with a shadow edge moved
    /// 3 px, 7.7–7.95; faint skin-like texture at 600 × 400 (ρ 0.073 over 80 000 samples), 6.9. An
    /// earlier 8 left those two unregistered; fainter motion (3.3–4.0: 10 lux on demosaiced 80 × 60
    /// and 128 × 96 cards) is within noise's reach and left as captured.
    public static let significantCorrelationScore = 6.0

    /// Whether a fit's feature correlation shows structure the frames share: positive and beyond
    /// noise's reach over its samples (`significantCorrelationScore`).
    static func isSignificant(_ correlation: Double, samples: Int) -> Bool {
        correlation.isFinite && correlation > 0 && correlation * (Double(samples) / 9).squareRoot() >= significantCorrelationScore
    }

    /// A working-level sample of the ambient frame is lit when it exceeds this many read-noise
    /// standard deviations (of a working-level sample): pure read noise gets there once in 10⁹.
    static let noSignalReadNoiseMultiple: Float = 6
    /// An ambient frame with fewer lit samples than this (over its three channels) carries no light to
    /// register against; a lamp covering a small part of a dark room still has thousands.
    static let litSamplesToRegister = 64

    /// Number of samples of `plane` above `level`.
    static func samplesAbove(_ plane: GrayImage, _ level: Float) -> Int {
        var count = 0
        for v in plane.pixels where v > level { count += 1 }
        return count
    }

    /// The normalized warp as a matrix on full-resolution pixel coordinates.
    static func pixelMatrix(_ warp: NormalizedWarp, width: Int, height: Int) -> Matrix3 {
        let s = Double(max(width, height)) / 2, cx = Double(width) / 2, cy = Double(height) / 2
        let toNormalized = Matrix3([1 / s, 0, -cx / s, 0, 1 / s, -cy / s, 0, 0, 1])
        let fromNormalized = Matrix3([s, 0, cx, 0, s, cy, 0, 0, 1])
        return fromNormalized * warp.matrix * toNormalized
    }
}

/// One pyramid level: template (flash) and moving (ambient) features and the sample pixels.
struct Level {
    let template: GrayImage
    let moving: GrayImage
    /// The moving features and their x and y gradients interleaved per pixel (value, ∂x, ∂y, 0),
    /// so that one bilinear interpolation of four lanes reads all three from the same cache lines.
    let movingPacked: [SIMD4<Float>]
    /// Pixel indices used by the iterations (strong template gradient).
    let samples: [Int32]
    /// Normalized coordinates and template value of each sample, in `samples` order.
    let sampleU: [Double], sampleV: [Double], sampleT: [Float]
    /// Normalization: u = (x − cx) / s in this level's pixels.
    let cx: Double, cy: Double, s: Double

    init(template: GrayImage, moving: GrayImage, frameWidth: Int, frameHeight: Int, maximumSamples: Int) {
        self.template = template
        self.moving = moving
        let factor = Double(frameWidth) / Double(template.width)
        cx = Double(frameWidth) / 2 / factor
        cy = Double(frameHeight) / 2 / factor
        s = Double(max(frameWidth, frameHeight)) / 2 / factor
        // The moving side (gradients, packing) runs beside the template side (sample choice).
        var packed: [SIMD4<Float>] = [], chosen: [Int32] = []
        withUnsafeMutablePointer(to: &packed) { packedPointer in
            withUnsafeMutablePointer(to: &chosen) { chosenPointer in
                let out = UncheckedSendableBox((packedPointer, chosenPointer))
                DispatchQueue.concurrentPerform(iterations: 2) { job in
                    if job == 0 {
                        out.value.0.pointee = Level.packedWithGradients(moving)
                    } else {
                        out.value.1.pointee = Level.strongGradientPixels(template, maximumSamples: maximumSamples)
                    }
                }
            }
        }
        movingPacked = packed
        samples = chosen
        let (cx, cy, s, w) = (cx, cy, s, template.width)
        sampleU = chosen.map { (Double(Int($0) % w) + 0.5 - cx) / s }
        sampleV = chosen.map { (Double(Int($0) / w) + 0.5 - cy) / s }
        sampleT = chosen.map { template.pixels[Int($0)] }
    }

    /// The image and its central-difference gradients interleaved per pixel: (value, ∂x, ∂y, 0).
    static func packedWithGradients(_ image: GrayImage) -> [SIMD4<Float>] {
        let (gradX, gradY) = RegistrationFeatures.gradients(image)
        return (0..<image.pixels.count).map { SIMD4(image.pixels[$0], gradX.pixels[$0], gradY.pixels[$0], 0) }
    }

    /// Strong-gradient template pixels away from the border, about `maximumSamples` of them: a
    /// threshold from a histogram of gradient magnitude.
    static func strongGradientPixels(_ template: GrayImage, maximumSamples: Int) -> [Int32] {
        let (tx, ty) = RegistrationFeatures.gradients(template)
        var magnitude = [Float](repeating: 0, count: tx.pixels.count)
        var maxMagnitude: Float = 0
        for i in magnitude.indices {
            magnitude[i] = tx.pixels[i] * tx.pixels[i] + ty.pixels[i] * ty.pixels[i]
            maxMagnitude = max(maxMagnitude, magnitude[i])
        }
        var chosen: [Int32] = []
        if maxMagnitude > 0 {
            let bins = 1024
            var histogram = [Int](repeating: 0, count: bins)
            for m in magnitude { histogram[min(bins - 1, Int(m / maxMagnitude * Float(bins)))] += 1 }
            var threshold: Float = 0, count = 0
            for b in stride(from: bins - 1, through: 0, by: -1) {
                count += histogram[b]
                if count >= maximumSamples { threshold = Float(b + 1) / Float(bins) * maxMagnitude; break }
            }
            let w = template.width
            for i in magnitude.indices where magnitude[i] > threshold && magnitude[i] > 0 {
                let x = i % w, y = i / w
                let b = RegistrationFeatures.borderMargin
                if x >= b && y >= b && x < w - b && y < template.height - b { chosen.append(Int32(i)) }
            }
        }
        return chosen
    }

    /// Best integer shift (in this level's pixels) by normalized cross-correlation.
    func integerSearch(radius: Int) -> NormalizedWarp {
        let w = template.width, h = template.height
        var scores: [(score: Double, dx: Int, dy: Int)] = []
        for dy in -radius...radius {
            for dx in -radius...radius {
                var st = 0.0, sm = 0.0, stt = 0.0, smm = 0.0, stm = 0.0, n = 0.0
                for y in max(0, -dy)..<min(h, h - dy) {
                    for x in max(0, -dx)..<min(w, w - dx) {
                        let t = Double(template.pixels[y * w + x]), m = Double(moving.pixels[(y + dy) * w + x + dx])
                        st += t; sm += m; stt += t * t; smm += m * m; stm += t * m; n += 1
                    }
                }
                guard n > 16 else { continue }
                let cov = stm / n - st / n * sm / n
                let vt = stt / n - st / n * st / n, vm = smm / n - sm / n * sm / n
                scores.append((cov / max(1e-30, (vt * vm).squareRoot()), dx, dy))
            }
        }
        // Repeated patterns give several near-equal peaks: prefer the smallest motion among the
        // shifts that score within 2 % of the best (hand-held motion is usually small).
        guard let top = scores.map(\.score).max(), top.isFinite else { return NormalizedWarp(model: .translation) }
        let best = scores.filter { $0.score >= top - 0.02 * abs(top) }
            .min { $0.dx * $0.dx + $0.dy * $0.dy < $1.dx * $1.dx + $1.dy * $1.dy }!
        return NormalizedWarp(model: .translation, p: [Double(best.dx) / s, Double(best.dy) / s])
    }

    /// The Huber-weighted normal equations at `warp`: `JᵀWJ`, `JᵀWe`, the weighted squared error,
    /// the template energy, Σ|e| and the number of samples used.
    func normalEquations(_ warp: NormalizedWarp, gain: Double, offset: Double, huber: Double)
        -> (normal: [Double], rhs: [Double], weightedSquares: Double, templateSquares: Double, absSum: Double, count: Double) {
        let n = warp.model.parameterCount, m = n + 2
        // A fixed number of sample chunks, summed in a fixed order: the same result on any core count.
        let chunks = samples.count >= 8192 ? 4 : 1
        var parts = [NormalEquationsPart](repeating: NormalEquationsPart(size: m), count: chunks)
        parts.withUnsafeMutableBufferPointer { buffer in
            let out = SharedMutableBuffer(buffer)
            let level = UncheckedSendableBox(self)
            DispatchQueue.concurrentPerform(iterations: chunks) { c in
                let all = level.value.samples.count
                out[c] = level.value.accumulate(warp, gain: gain, offset: offset, huber: huber,
                                                range: (all * c / chunks)..<(all * (c + 1) / chunks))
            }
        }
        var total = parts[0]
        for part in parts.dropFirst() {
            for k in 0..<(m * m) { total.normal[k] += part.normal[k] }
            for k in 0..<m { total.rhs[k] += part.rhs[k] }
            total.weightedSquares += part.weightedSquares; total.templateSquares += part.templateSquares
            total.absSum += part.absSum; total.count += part.count
        }
        for a in 0..<m { for b in 0..<a { total.normal[a * m + b] = total.normal[b * m + a] } }
        return (total.normal, total.rhs, total.weightedSquares, total.templateSquares, total.absSum, total.count)
    }

    /// The Huber-weighted Gauss–Newton sums over `samples[range]` (upper triangle of the normal matrix).
    func accumulate(_ warp: NormalizedWarp, gain: Double, offset: Double, huber: Double, range: Range<Int>) -> NormalEquationsPart {
        switch warp.model {
        case .translation: accumulate(TranslationKernel(warp.p), gain: gain, offset: offset, huber: huber, range: range)
        case .rigid: accumulate(RigidKernel(warp.p), gain: gain, offset: offset, huber: huber, range: range)
        case .similarity: accumulate(SimilarityKernel(warp.p), gain: gain, offset: offset, huber: huber, range: range)
        case .homography: accumulate(HomographyKernel(warp.p), gain: gain, offset: offset, huber: huber, range: range)
        }
    }

    /// `accumulate` for one warp model: the model's parameter count is a compile-time constant of
    /// the specialization, so the Jacobian and normal-matrix loops unroll and nothing is allocated
    /// per sample.
    func accumulate<K: WarpKernel>(_ kernel: K, gain: Double, offset: Double, huber: Double, range: Range<Int>) -> NormalEquationsPart {
        let n = K.parameterCount, m = n + 2
        var part = NormalEquationsPart(size: m)
        // Features within the margin of the moving frame's border are biased (their high-pass
        // window is cut by the border at a different scene place than the template's).
        let margin = Float(RegistrationFeatures.borderMargin)
        let movingRight = Float(moving.width) - margin, movingBottom = Float(moving.height) - margin
        let w = moving.width
        let (s, cx, cy) = (s, cx, cy)
        var absSum = 0.0, weightedSquares = 0.0, templateSquares = 0.0, count = 0.0
        withUnsafeTemporaryAllocation(of: Double.self, capacity: 2 * n + m + m * m + m) { scratch in
            let base = scratch.baseAddress!
            base.initialize(repeating: 0, count: scratch.count)
            let jx = base, jy = base + n, jacobian = base + 2 * n, normal = jacobian + m, rhs = normal + m * m
            movingPacked.withUnsafeBufferPointer { packed in
            sampleU.withUnsafeBufferPointer { us in
            sampleV.withUnsafeBufferPointer { vs in
            sampleT.withUnsafeBufferPointer { ts in
                let p = packed.baseAddress!
                for k in range {
                    let (wu, wv) = kernel.apply(u: us[k], v: vs[k], jx: jx, jy: jy)
                    let ax = Float(wu * s + cx), ay = Float(wv * s + cy)
                    guard ax >= margin, ay >= margin, ax <= movingRight, ay <= movingBottom else { continue }
                    let sample = Self.bilinear(p, width: w, x: ax, y: ay)
                    let value = Double(sample.x)
                    let t = Double(ts[k])
                    let e = t - (gain * value + offset)
                    let weight = abs(e) <= huber ? 1.0 : huber / abs(e)
                    absSum += abs(e); weightedSquares += weight * e * e; templateSquares += t * t; count += 1
                    let gsx = gain * Double(sample.y) * s, gsy = gain * Double(sample.z) * s
                    for a in 0..<n { jacobian[a] = gsx * jx[a] + gsy * jy[a] }
                    jacobian[n] = value; jacobian[n + 1] = 1
                    for a in 0..<m {
                        let wa = weight * jacobian[a]
                        rhs[a] += wa * e
                        for b in a..<m { normal[a * m + b] += wa * jacobian[b] }
                    }
                }
            }}}}
            for k in 0..<(m * m) { part.normal[k] = normal[k] }
            for k in 0..<m { part.rhs[k] = rhs[k] }
        }
        part.absSum = absSum; part.weightedSquares = weightedSquares
        part.templateSquares = templateSquares; part.count = count
        return part
    }

    /// The packed moving features (value, ∂x, ∂y) at level position (`x`, `y`), interpolated
    /// bilinearly with pixel centres at half-integers (`GrayImage.bilinear`); the position must lie
    /// at least one pixel inside the level.
    @inline(__always)
    static func bilinear(_ p: UnsafePointer<SIMD4<Float>>, width w: Int, x: Float, y: Float) -> SIMD4<Float> {
        let fx = x - 0.5, fy = y - 0.5
        let x0 = Int(fx), y0 = Int(fy)
        let tx = fx - Float(x0), ty = fy - Float(y0)
        let i = y0 * w + x0
        let top = p[i] + tx * (p[i + 1] - p[i])
        let bottom = p[i + w] + tx * (p[i + w + 1] - p[i + w])
        return top + ty * (bottom - top)
    }

    /// The correlation `Σt·m / √(Σt²·Σm²)` of the template's features `t` with the moving frame's
    /// `m` warped by `warp`, over the samples that fall inside the moving frame's margin (the
    /// features are high-passed: zero mean), and their number.
    /// Independent noise gives about 0, one scene under the two lights 0.5–0.99.
    func featureCorrelation(_ warp: NormalizedWarp) -> (correlation: Double, count: Int) {
        let margin = Float(RegistrationFeatures.borderMargin)
        let movingRight = Float(moving.width) - margin, movingBottom = Float(moving.height) - margin
        var tm = 0.0, tt = 0.0, mm = 0.0, count = 0
        let matrix = warp.matrix
        movingPacked.withUnsafeBufferPointer { packed in
            for k in samples.indices {
                let q = matrix * SIMD3(sampleU[k], sampleV[k], 1)
                let ax = Float(q.x / q.z * s + cx), ay = Float(q.y / q.z * s + cy)
                guard ax >= margin, ay >= margin, ax <= movingRight, ay <= movingBottom else { continue }
                let t = Double(sampleT[k]), m = Double(Self.bilinear(packed.baseAddress!, width: moving.width, x: ax, y: ay).x)
                tm += t * m; tt += t * t; mm += m * m; count += 1
            }
        }
        return (tt > 0 && mm > 0 ? tm / (tt * mm).squareRoot() : 0, count)
    }

    /// Whether the rigid fit's rotation lowers the robust cost by far more than `margin` needs: the
    /// Gauss–Newton increase of Σ w e² when the angle is pinned at zero and the rest re-solved,
    /// θ² / (H⁻¹)θθ (the Schur complement; Nocedal & Wright 2006, 16.1), is over ten times the
    /// increase that would let translation win. The quadratic model overstates the increase where
    /// residuals pass the Huber threshold, hence the factor ten.
    func rotationClearlyPays(_ rigid: NormalizedWarp, photometric: (gain: Double, offset: Double),
                             huber: Double, cost: Double, margin: Double) -> Bool {
        guard rigid.model == .rigid, cost.isFinite, margin < 1 else { return false }
        let e = normalEquations(rigid, gain: photometric.gain, offset: photometric.offset, huber: huber)
        let m = 5
        var unit = [Double](repeating: 0, count: m); unit[2] = 1
        guard e.count > 0, let column = solveSymmetric(e.normal, unit, size: m), column[2] > 0 else { return false }
        let increase = rigid.p[2] * rigid.p[2] / column[2]
        // Translation wins when its cost is below cost / (1 − margin): Σ w e² up by less than this.
        let allowed = e.weightedSquares * (1 / ((1 - margin) * (1 - margin)) - 1)
        return increase > 10 * allowed
    }

    /// Whether a fit from `start` may bring the robust relative residual below `target`: the
    /// Gauss–Newton predicted decrease of Σ w e² (gᵀH⁻¹g, Nocedal & Wright 2006, 10.3), tripled for
    /// safety, reaches the decrease the target needs (with Huber weights re-evaluated along the way,
    /// the first step's prediction understated the fitted decrease by up to 1.7× on the bench pairs).
    func mayLowerCost(_ start: NormalizedWarp, photometric: (gain: Double, offset: Double), huber: Double,
                      below target: Double) -> Bool {
        let e = normalEquations(start, gain: photometric.gain, offset: photometric.offset, huber: huber)
        let m = start.model.parameterCount + 2
        guard e.count > Double(4 * m), let step = solveSymmetric(e.normal, e.rhs, size: m) else { return true }
        let predicted = zip(step, e.rhs).reduce(0) { $0 + $1.0 * $1.1 }
        let needed = e.weightedSquares - target * target * e.templateSquares
        return 3 * predicted >= needed
    }

    /// Huber's threshold 1.345 σ (Huber 1981), with the robust scale σ ≈ 1.2533 · mean|e| of Gaussian
    /// residuals taken at `warp`; infinite when too few samples fall inside the moving frame.
    func huberThreshold(_ warp: NormalizedWarp, photometric: (gain: Double, offset: Double)) -> Double {
        let e = normalEquations(warp, gain: photometric.gain, offset: photometric.offset, huber: .infinity)
        guard e.count > Double(4 * (warp.model.parameterCount + 2)) else { return .infinity }
        return 1.345 * 1.2533 * e.absSum / e.count
    }

    /// Levenberg–Marquardt (Marquardt 1963) on the Huber-weighted Gauss–Newton system; a step is
    /// kept only if it lowers the weighted error. Returns the warp, the photometric gain/offset
    /// and the robust relative residual (√(Σ w e² / Σ t²) over the sample pixels).
    func fit(_ start: NormalizedWarp, photometric start2: (gain: Double, offset: Double),
             iterations: Int, huber fixedHuber: Double? = nil) -> (NormalizedWarp, (gain: Double, offset: Double), Double) {
        var warp = start
        var gain = start2.gain, offset = start2.offset
        let n = warp.model.parameterCount, m = n + 2
        let huber = fixedHuber ?? huberThreshold(warp, photometric: (gain, offset))
        guard huber.isFinite else { return (warp, (gain, offset), .infinity) }
        var current = normalEquations(warp, gain: gain, offset: offset, huber: huber)
        guard current.count > Double(4 * m) else { return (warp, (gain, offset), .infinity) }
        var lambda = 1e-4
        for _ in 0..<iterations {
            var damped = current.normal
            for a in 0..<m { damped[a * m + a] *= 1 + lambda }
            guard let step = solveSymmetric(damped, current.rhs, size: m) else { lambda *= 10; continue }
            var candidate = warp
            for k in 0..<n { candidate.p[k] += step[k] }
            let trial = normalEquations(candidate, gain: gain + step[n], offset: offset + step[n + 1], huber: huber)
            let comparable = trial.count >= current.count * 0.98
            if comparable && trial.weightedSquares / trial.count <= current.weightedSquares / current.count {
                warp = candidate; gain += step[n]; offset += step[n + 1]
                current = trial
                lambda = max(1e-9, lambda / 10)
                // Largest motion the step caused, in level pixels (normalized units × s).
                let change = step[0..<n].map { abs($0) * s }.max() ?? 0
                if change < 1e-3 { break }
            } else {
                lambda *= 10
                if lambda > 1e6 { break }
            }
        }
        let cost = (current.weightedSquares / max(current.templateSquares, 1e-30)).squareRoot()
        return (warp, (gain, offset), cost)
    }
}

extension UnsafeMutableBufferPointer where Element == Float {
    /// Reorders so that element `k` is what a full sort would put there (Hoare's selection).
    mutating func partitionAtMedian(_ k: Int) -> Float {
        var lo = 0, hi = count - 1
        while lo < hi {
            let pivot = self[(lo + hi) / 2]
            var i = lo, j = hi
            while i <= j {
                while self[i] < pivot { i += 1 }
                while self[j] > pivot { j -= 1 }
                if i <= j { swapAt(i, j); i += 1; j -= 1 }
            }
            if k <= j { hi = j } else if k >= i { lo = i } else { break }
        }
        return self[k]
    }
}

/// Solves a symmetric positive definite system by Cholesky; `nil` if not positive definite.
func solveSymmetric(_ a: [Double], _ b: [Double], size n: Int) -> [Double]? {
    var l = [Double](repeating: 0, count: n * n)
    for i in 0..<n {
        for j in 0...i {
            var sum = a[i * n + j]
            for k in 0..<j { sum -= l[i * n + k] * l[j * n + k] }
            if i == j {
                guard sum > 0, sum.isFinite else { return nil }
                l[i * n + i] = sum.squareRoot()
            } else {
                l[i * n + j] = sum / l[j * n + j]
            }
        }
    }
    var y = [Double](repeating: 0, count: n)
    for i in 0..<n {
        var sum = b[i]
        for k in 0..<i { sum -= l[i * n + k] * y[k] }
        y[i] = sum / l[i * n + i]
    }
    var x = [Double](repeating: 0, count: n)
    for i in stride(from: n - 1, through: 0, by: -1) {
        var sum = y[i]
        for k in (i + 1)..<n { sum -= l[k * n + i] * x[k] }
        x[i] = sum / l[i * n + i]
    }
    return x
}

/// Partial sums of the registration's normal equations over a chunk of samples.
struct NormalEquationsPart {
    var normal: [Double], rhs: [Double]
    var weightedSquares = 0.0, templateSquares = 0.0, absSum = 0.0, count = 0.0
    init(size m: Int) {
        normal = [Double](repeating: 0, count: m * m)
        rhs = [Double](repeating: 0, count: m)
    }
}
