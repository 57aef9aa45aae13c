import ArgumentParser
import ConstantColor
import ConstantColorIO
import ConstantColorSynth
import Foundation

/// `constant-color synth`: physically based flash / ambient fixture pairs (SPEC 4.5).
struct SynthCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "synth",
        abstract: "Render physically based flash / ambient pairs of a ColorChecker from spectral data.",
        discussion: """
            Writes flash.tif, ambient.tif (16-bit linear camera RGB, EXIF exposure) and truth.json into \
            the --out folder (darkroom.tif for a capture without ambient light, with dark.tif: its \
            dark frame, lens capped at the same exposure, black level and read noise only). Light: --preset NAME, or \
            --light SPEC@LUX[@PLACEMENT] (repeatable; SPEC = planckian:K[:DUV], daylight:K[:DUV], \
            file:lamp-fl11.json (in the spectral folder, or a path with a /), led:PEAK_NM[:HALF_WIDTH]; PLACEMENT = uniform, left, right, spot:CX:CY:SIGMA), \
            or --darkroom; --flat-field puts a uniform grey card in place of the chart (with --darkroom \
            and --flash-shading: a flat-field capture for calibrate flat-field). --set committed|envelope|hard|real-hard|all renders every preset of a set into \
            --out/NAME (real-hard: envelope conditions and lamps with every capture fault on). \
            Capture faults (issue 7), on any condition: --exposure-error, --flicker, --shake, \
            --moving-object, --flash-shading, or --all-effects (each drawn from the condition's name; \
            a flag given alongside overrides that effect). --truth-maps also writes labels.tif and \
            ambient-labels.tif (8-bit material labels, 0 = mixed) and each material's reference \
            L*a*b* (D65) in truth.json. --demosaic bilinear-rggb (or malvar-rggb) passes every frame \
            (flash, ambient, dark) through an RGGB colour filter array and bilinear (or Malvar-He-Cutler \
            gradient-corrected) demosaicing, as a raw developer's linear TIFF (pixel noise spatially \
            correlated; truth.json records "demosaic"). Spectral \
            data come from --spectra or fixtures/spectra (CONSTANT_COLOR_SPECTRA).
            """)

    @Option(help: "Output folder (for --set: the parent of one folder per condition).") var out: String?
    @Option(help: "A named condition (see --list-presets).") var preset: String?
    @Option(help: "Render every condition of a set: committed, envelope, hard, real-hard or all.") var set: String?
    @Option(parsing: .singleValue, help: "An ambient light SPEC@LUX[@PLACEMENT]; repeatable.") var light: [String] = []
    @Flag(help: "A dark-room capture: the chart lit by the flash alone.") var darkroom = false
    @Flag(help: "Print the preset names and exit.") var listPresets = false
    @Option(help: "Condition name for --light (the truth file's condition.name; default custom).") var name: String?
    @Option(help: "Condition description for --light.") var description: String?
    @Option(parsing: .unconditional, help: "Frame width, pixels.") var width: Int = 600
    @Option(parsing: .unconditional, help: "Frame height, pixels.") var height: Int = 400
    @Option(parsing: .unconditional, help: "Seed of the noise (with --set, mixed with each condition's name).") var seed: UInt64 = 1
    @Option(help: "Camera sensitivity file (in the spectral folder, or a path).") var camera: String = "camera-nikon-5100-npl.json"
    @Option(help: "Flash SPD file (in the spectral folder, or a path).") var flash: String = "flash-phosphor-led-yag.json"
    @Option(parsing: .unconditional, help: "Flash illuminance on the chart centre, lux.") var flashLux: Double = 400
    @Option(parsing: .unconditional, help: "Ambient gradient across the width for --light (relative, within ±2: the light goes from 1 − G/2 to 1 + G/2 across the frame; default 0.3).")
    var gradient: Double?
    @Flag(help: "No ambient shadow (with --light).") var noShadow = false
    @Flag(help: "No flash highlights (with --light).") var noSpeculars = false
    @Option(parsing: .unconditional, help: "Camera motion dx,dy,degrees at 600 px width (with --light; default 2.37,-1.61,0.35; each within ±1000).") var motion: String?
    @Flag(help: "No noise (expected values, rounded).") var noNoise = false
    @Flag(help: "With --darkroom (or the darkroom preset), skip the dark frame dark.tif.") var noDarkFrame = false
    @Option(help: "TIFF compression: none, lzw or deflate.") var compression: String = "deflate"
    @Option(help: "Spectral data folder.") var spectra: String?
    @Flag(help: "Write per-pixel truth: labels.tif, ambient-labels.tif and materials[] in truth.json.") var truthMaps = false
    @Flag(help: "Every capture fault on, drawn from the condition's name.") var allEffects = false
    @Flag(help: "A uniform 18 % grey card fills the frame instead of the chart (with --darkroom: a flat-field capture for calibrate flat-field).")
    var flatField = false
    @Option(parsing: .unconditional, help: "EXIF off: true shutter time and gain of each frame random within ±R (relative), from the seed.") var exposureError: Double?
    @Option(parsing: .unconditional, help: "EXIF off: given true/EXIF factors flashTime,flashGain,ambientTime,ambientGain.") var exposureFactors: String?
    @Option(parsing: .unconditional, help: "Flicker HZ:DEPTH[:PWM_HZ[:DUTY]] (HZ = light modulation: 100 or 120 for lamps on 50 or 60 Hz mains; any positive frequency is rendered).") var flicker: String?
    @Option(parsing: .unconditional, help: "Rolling-shutter readout time of a frame, ms (with --flicker or --all-effects; default 20).") var readoutMs: Double?
    @Option(parsing: .unconditional, help: "Flicker phase at the flash frame's start, cycles (with --flicker or --all-effects; default: from the seed).") var flickerPhase: Double?

    /// The readout time, given or default (20 ms).
    var readoutSeconds: Double { (readoutMs ?? 20) / 1000 }
    @Option(parsing: .unconditional, help: "Hand shake in the ambient exposure: LENGTH,ANGLE[,BOW] (pixels at 600 px width, degrees).") var shake: String?
    @Option(parsing: .unconditional, help: "Moving object FX,FY,AX,AY,R: centre at the flash and ambient frame and radius, fractions of the width/height.") var movingObject: String?
    @Option(help: "Moving object outline: disc (the default) or square (with --moving-object or --all-effects).") var movingObjectShape: String?
    @Option(parsing: .unconditional, help: "Flash colour shading: fraction of the flash's blue band lost at the frame's corners.") var flashShading: Double?
    @Option(help: "Colour filter array and demosaicing of every frame: bilinear-rggb or malvar-rggb (default: none, every pixel records R, G and B).")
    var demosaic: String?

    func validate() throws {
        guard width >= 64, height >= 48, width <= 20000, height <= 20000 else {
            throw ValidationError("--width/--height must be 64x48 to 20000x20000")
        }
        guard ["none", "lzw", "deflate"].contains(compression) else { throw ValidationError("--compression must be none, lzw or deflate") }
        let modes = [preset != nil, set != nil, !light.isEmpty, darkroom].filter { $0 }.count
        guard listPresets || out != nil else { throw ValidationError("--out is required") }
        guard listPresets || modes == 1 else {
            throw ValidationError("give exactly one of --preset, --set, --light or --darkroom")
        }
        if let set, !["committed", "envelope", "hard", "real-hard", "all"].contains(set) {
            throw ValidationError("--set must be committed, envelope, hard, real-hard or all")
        }
        if let e = exposureError, !(e >= 0 && e < 0.5) { throw ValidationError("--exposure-error must be in [0, 0.5)") }
        if exposureError != nil && exposureFactors != nil { throw ValidationError("give --exposure-error or --exposure-factors, not both") }
        if let r = readoutMs, !(r >= 0 && r.isFinite) { throw ValidationError("--readout-ms must be >= 0") }
        // (A phase of NaN or infinity hung the renderer: reducing it to one cycle never ends.)
        if let p = flickerPhase, !p.isFinite { throw ValidationError("--flicker-phase must be a finite number of cycles") }
        guard ["disc", "square"].contains(movingObjectShape ?? "disc") else { throw ValidationError("--moving-object-shape must be disc or square") }
        if let f = flashShading, !(f >= 0 && f <= 1) { throw ValidationError("--flash-shading must be in [0, 1]") }
        if let d = demosaic, Demosaic(rawValue: d) == nil {
            throw ValidationError("--demosaic must be \(Demosaic.allCases.map(\.rawValue).joined(separator: " or "))")
        }
        _ = try effects(key: "check")
        guard flashLux > 0, flashLux.isFinite else { throw ValidationError("--flash-lux must be positive") }
        // The light is 1 + G·(x/W − ½): beyond ±2 one side of the frame gets negative light.
        // The scene options describe a --light scene; a preset, a set or a dark-room capture fixes its
        // own (they were ignored without a word).
        if light.isEmpty {
            let sceneOnly = [("--gradient", gradient != nil), ("--no-shadow", noShadow), ("--no-speculars", noSpeculars),
                             ("--motion", motion != nil)].filter(\.1).map(\.0)
            if !sceneOnly.isEmpty {
                throw ValidationError("\(sceneOnly.joined(separator: ", ")) \(sceneOnly.count == 1 ? "describes" : "describe") a --light scene; a preset, a set or a dark-room capture has its own")
            }
        }
        // Options that describe what this run does not render were ignored without a word.
        let ignored = [("--name", name != nil && light.isEmpty), ("--description", description != nil && light.isEmpty),
                       ("--no-dark-frame", noDarkFrame && !darkroom && preset != "darkroom" && set == nil),
                       ("--moving-object-shape", movingObjectShape != nil && movingObject == nil && !allEffects && set == nil),
                       ("--readout-ms", readoutMs != nil && flicker == nil && !allEffects),
                       ("--flicker-phase", flickerPhase != nil && flicker == nil && !allEffects)]
            .filter(\.1).map(\.0)
        if !ignored.isEmpty {
            throw ValidationError("\(ignored.joined(separator: ", ")) would be ignored: --name and --description name a --light condition, --no-dark-frame belongs to a dark-room capture, --moving-object-shape to --moving-object or --all-effects, --readout-ms and --flicker-phase to --flicker or --all-effects")
        }
        guard abs(gradient ?? 0) <= 2 else { throw ValidationError("--gradient must be within ±2 (the light goes from 1 − G/2 to 1 + G/2 across the frame; beyond, one side gets negative light)") }
        // A dark-room capture has no ambient frame: the pair's faults have nothing to act on.
        if darkroom || preset == "darkroom" {
            let pairOnly = [("--exposure-error", exposureError != nil), ("--exposure-factors", exposureFactors != nil),
                            ("--flicker", flicker != nil), ("--shake", shake != nil), ("--moving-object", movingObject != nil),
                            ("--all-effects", allEffects)].filter(\.1).map(\.0)
            if !pairOnly.isEmpty {
                throw ValidationError("\(pairOnly.joined(separator: ", ")) act on a flash/ambient pair; a dark-room capture has no ambient frame (only --flash-shading applies)")
            }
        }
    }

    /// The capture faults asked for, for a condition called `key`.
    func effects(key: String) throws -> CaptureEffects {
        func numbers(_ text: String, _ option: String, counts: [Int]) throws -> [Double] {
            let v = text.split(separator: text.contains(":") ? ":" : ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard counts.contains(v.count), v.allSatisfy({ $0?.isFinite == true }) else {
                throw ValidationError("\(option) '\(text)': expected \(counts.map(String.init).joined(separator: " or ")) numbers")
            }
            return v.map { $0! }
        }
        var e = allEffects ? CaptureEffects.allOn(key: key) : .none
        if let r = exposureError { e.exposureError = .random(maxRelative: r) }
        if let t = exposureFactors {
            let f = try numbers(t, "--exposure-factors", counts: [4])
            guard f.allSatisfy({ $0 > 0 }) else { throw ValidationError("--exposure-factors must be positive") }
            e.exposureError = .given(ExposureFactors(flashTime: f[0], flashGain: f[1], ambientTime: f[2], ambientGain: f[3]))
        }
        if let t = flicker {
            let f = try numbers(t, "--flicker", counts: [2, 3, 4])
            guard f[0] > 0, f[1] >= 0, f[1] <= 1, f.count < 3 || f[2] > 0, f.count < 4 || (f[3] > 0 && f[3] <= 1) else {
                throw ValidationError("--flicker: HZ > 0, DEPTH in [0, 1], PWM_HZ > 0, DUTY in (0, 1]")
            }
            e.flicker = Flicker(frequencyHz: f[0], depth: f[1], pwmHz: f.count >= 3 ? f[2] : nil,
                                pwmDuty: f.count == 4 ? f[3] : 0.5, frameReadoutSeconds: readoutSeconds,
                                phaseCycles: flickerPhase)
        } else if var f = e.flicker {
            f.frameReadoutSeconds = readoutSeconds
            if let p = flickerPhase { f.phaseCycles = p }
            e.flicker = f
        }
        if let t = shake {
            let f = try numbers(t, "--shake", counts: [2, 3])
            // (As --motion: a length of 1e9 px recorded offsets of ±1e8 px, a frame of nothing.)
            guard f[0] >= 0, f[0] <= 1000, f.allSatisfy({ abs($0) <= 1000 }) else {
                throw ValidationError("--shake: LENGTH must be in [0, 1000] px, ANGLE and BOW within ±1000")
            }
            e.handShake = HandShake(lengthPx: f[0], angleDegrees: f[1], bowPx: f.count == 3 ? f[2] : 0)
        }
        if let t = movingObject {
            let f = try numbers(t, "--moving-object", counts: [5])
            guard f[4] > 0 && f[4] < 0.5 else { throw ValidationError("--moving-object: R must be in (0, 0.5)") }
            e.movingObject = MovingObject(flashCenter: SIMD2(f[0], f[1]), ambientCenter: SIMD2(f[2], f[3]), radiusFraction: f[4],
                                          shape: movingObjectShape == "square" ? .square : .disc)
        } else if movingObjectShape == "square", var m = e.movingObject {
            m.shape = .square
            e.movingObject = m
        }
        if let a = flashShading { e.flashColorShading = FlashColorShading(blueLossAtEdge: a) }
        return e
    }

    func run() throws {
        if listPresets {
            for c in SynthCondition.allPresets { print("\(c.name)\t\(c.description)") }
            return
        }
        if let folder = spectra {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), !isFolder.boolValue {
                throw CLIError(file: folder, problem: "is a file, not a folder: --spectra names the folder that holds the spectral data files")
            }
        }
        let library = try spectra.map { try SpectralLibrary(directory: $0) } ?? SpectralLibrary()
        func resolve(_ f: String) -> String { f.contains("/") ? f : library.path(f) }
        let sensitivity = try CameraSensitivity(path: resolve(camera))
        let cam = SynthCamera(name: sensitivity.name, sensitivity: sensitivity)
        let flashSPD = try SpectralDistribution(path: resolve(flash))
        // Spectral tables sampled coarsely, or with a gap, are interpolated across it (SPEC 4.2): said.
        let lightFiles = light.compactMap { text -> String? in
            guard let l = try? AmbientLight(parsing: text), case .file(let f) = l.spectrum else { return nil }
            return resolve(f)
        }
        // A spectrum that gives no light to scale to lux is its file's fault: said with the file's
        // name (the renderer can name only the spectrum's own `name`).
        for path in [resolve(flash)] + lightFiles {
            let spd = path == resolve(flash) ? flashSPD : try SpectralDistribution(path: path)
            do { _ = try Photometry.scaled(spd, toIlluminanceLux: 1, cmfs: library.cmfs) } catch {
                throw CLIError(file: path, problem: "\(error)")
            }
        }
        for path in [resolve(camera), resolve(flash)] + lightFiles {
            if let note = SpectralDistribution.samplingNote(path: path) { Progress().say("warning: " + note) }
        }
        let renderer = SceneRenderer(library: library, camera: cam, flash: flashSPD, flashLuxAtCenter: flashLux)
        let comp: TIFFWriteOptions.Compression = compression == "none" ? .none : compression == "lzw" ? .lzw : .deflate
        let progress = Progress()

        let out = self.out ?? "."
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: out, isDirectory: &isFolder), !isFolder.boolValue {
            throw CLIError(file: out, problem: "is a file; --out names a folder (created when missing)")
        }
        var jobs: [(SynthCondition, String, UInt64)] = []
        if let set {
            let conditions: [SynthCondition]
            switch set {
            case "committed": conditions = SynthCondition.committedSet
            case "envelope": conditions = SynthCondition.envelopeSet
            case "hard": conditions = SynthCondition.hardSet + [.darkroom]
            case "real-hard": conditions = SynthCondition.realHardSet
            default: conditions = SynthCondition.allPresets
            }
            jobs = conditions.map { c in
                var h = seed
                for b in c.name.utf8 { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
                return (c, (out as NSString).appendingPathComponent(c.name), h)
            }
        } else if let preset {
            guard let c = SynthCondition.preset(named: preset) else {
                throw ValidationError("unknown preset '\(preset)' (see --list-presets)")
            }
            jobs = [(c, out, seed)]
        } else if darkroom {
            jobs = [(.darkroom, out, seed)]
        } else {
            let m = (motion ?? "2.37,-1.61,0.35").split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            // (A motion of 1e9 px rendered an ambient frame of nothing.)
            guard m.count == 3, m.allSatisfy({ abs($0) <= 1000 }) else {
                throw ValidationError("--motion must be dx,dy,degrees, each within ±1000")
            }
            let lights = try light.map { text in
                do { return try AmbientLight(parsing: text) } catch { throw ValidationError("--light: \(error)") }
            }
            let c = SynthCondition(name: name ?? "custom", description: description ?? light.joined(separator: " + "), lights: lights,
                                   gradient: gradient ?? 0.3, shadow: !noShadow, speculars: !noSpeculars,
                                   motion: RigidMotion(translationXPx: m[0], translationYPx: m[1], rotationDegrees: m[2]))
            jobs = [(c, out, seed)]
        }
        for (base, folder, s) in jobs {
            var condition = base
            let asked = try effects(key: condition.name)
            if !asked.isEmpty && !condition.lights.isEmpty {
                // Flags override the preset's own faults one by one.
                var e = condition.effects
                if asked.exposureError != nil { e.exposureError = asked.exposureError }
                if asked.flicker != nil { e.flicker = asked.flicker }
                if asked.handShake != nil { e.handShake = asked.handShake }
                if asked.movingObject != nil { e.movingObject = asked.movingObject }
                if asked.flashColorShading != nil { e.flashColorShading = asked.flashColorShading }
                condition.effects = e
            } else if !asked.isEmpty, let shading = asked.flashColorShading {
                condition.effects.flashColorShading = shading       // a dark room has no ambient faults
            }
            let start = Date()
            let capture = try renderer.render(condition, width: width, height: height, seed: s,
                                              content: flatField ? .greyCard : .colorChecker,
                                              options: RenderOptions(noise: !noNoise, truthMaps: truthMaps, darkFrame: !noDarkFrame,
                                                                     demosaic: demosaic.flatMap(Demosaic.init(rawValue:))))
            let rendered = Date()
            try capture.write(toDirectory: folder, compression: comp)
            progress.say(String(format: "%@: %dx%d rendered in %.2f s, written in %.2f s", folder, width, height,
                                rendered.timeIntervalSince(start), Date().timeIntervalSince(rendered)))
            // A frame mostly at the white level measures nothing (--flash-lux 1e9 wrote a dark-room
            // capture clipped everywhere, the exposure at its floor): said, with the frame named.
            for (frame, name) in [(capture.flash, capture.ambient == nil ? "darkroom.tif" : "flash.tif")] + (capture.ambient.map { [($0, "ambient.tif")] } ?? []) {
                let image = frame.image, n = image.pixelCount, white = Float(renderer.camera.whiteLevel)
                var clipped = 0
                for i in 0..<n where image.samples[i] >= white || image.samples[n + i] >= white || image.samples[2 * n + i] >= white {
                    clipped += 1
                }
                if 100 * clipped > n {
                    progress.say(String(format: "warning: %@/%@: %.1f %% of its pixels are at the camera's white level (%g): light beyond what the exposure range holds (lower --flash-lux or the lights' lux)",
                                        folder, name, 100 * Double(clipped) / Double(n), renderer.camera.whiteLevel))
                }
            }
        }
    }
}
