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
            the --out folder (darkroom.tif for a capture without ambient light). Light: --preset NAME, or \
            --light SPEC@LUX[@PLACEMENT] (repeatable; SPEC = planckian:K[:DUV], daylight:K[:DUV], \
            file:lamp-fl11.json, led:PEAK_NM[:HALF_WIDTH]; PLACEMENT = uniform, left, right, spot:CX:CY:SIGMA), \
            or --darkroom. --set committed|envelope|hard|all renders every preset of a set into \
            --out/NAME. Spectral data come from --spectra or fixtures/spectra (CONSTANT_COLOR_SPECTRA).
            """)

    @Option(help: "Output folder (for --set: the parent of one folder per condition).") var out: String?
    @Option(help: "A named condition (see --list-presets).") var preset: String?
    @Option(help: "Render every condition of a set: committed, envelope, hard or all.") var set: String?
    @Option(parsing: .singleValue, help: "An ambient light SPEC@LUX[@PLACEMENT]; repeatable.") var light: [String] = []
    @Flag(help: "A dark-room capture: the chart lit by the flash alone.") var darkroom = false
    @Flag(help: "Print the preset names and exit.") var listPresets = false
    @Option(help: "Condition name for --light (the truth file's condition.name).") var name: String = "custom"
    @Option(help: "Condition description for --light.") var description: String?
    @Option(help: "Frame width, pixels.") var width: Int = 600
    @Option(help: "Frame height, pixels.") var height: Int = 400
    @Option(help: "Seed of the noise (with --set, mixed with each condition's name).") var seed: UInt64 = 1
    @Option(help: "Camera sensitivity file (in the spectral folder, or a path).") var camera: String = "camera-nikon-5100-npl.json"
    @Option(help: "Flash SPD file (in the spectral folder, or a path).") var flash: String = "flash-phosphor-led-yag.json"
    @Option(help: "Flash illuminance on the chart centre, lux.") var flashLux: Double = 400
    @Option(help: "Ambient gradient across the width for --light (relative).") var gradient: Double = 0.3
    @Flag(help: "No ambient shadow (with --light).") var noShadow = false
    @Flag(help: "No flash highlights (with --light).") var noSpeculars = false
    @Option(help: "Camera motion dx,dy,degrees at 600 px width (with --light).") var motion: String = "2.37,-1.61,0.35"
    @Flag(help: "No noise (expected values, rounded).") var noNoise = false
    @Option(help: "TIFF compression: none, lzw or deflate.") var compression: String = "deflate"
    @Option(help: "Spectral data folder.") var spectra: String?

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
        if let set, !["committed", "envelope", "hard", "all"].contains(set) {
            throw ValidationError("--set must be committed, envelope, hard or all")
        }
        guard flashLux > 0 else { throw ValidationError("--flash-lux must be positive") }
    }

    func run() throws {
        if listPresets {
            for c in SynthCondition.allPresets { print("\(c.name)\t\(c.description)") }
            return
        }
        let library = try spectra.map { try SpectralLibrary(directory: $0) } ?? SpectralLibrary()
        func resolve(_ f: String) -> String { f.contains("/") ? f : library.path(f) }
        let sensitivity = try CameraSensitivity(path: resolve(camera))
        let cam = SynthCamera(name: sensitivity.name, sensitivity: sensitivity)
        let flashSPD = try SpectralDistribution(path: resolve(flash))
        let renderer = SceneRenderer(library: library, camera: cam, flash: flashSPD, flashLuxAtCenter: flashLux)
        let comp: TIFFWriteOptions.Compression = compression == "none" ? .none : compression == "lzw" ? .lzw : .deflate
        let progress = Progress()

        let out = self.out ?? "."
        var jobs: [(SynthCondition, String, UInt64)] = []
        if let set {
            let conditions: [SynthCondition]
            switch set {
            case "committed": conditions = SynthCondition.committedSet
            case "envelope": conditions = SynthCondition.envelopeSet
            case "hard": conditions = SynthCondition.hardSet + [.darkroom]
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
            let m = motion.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard m.count == 3 else { throw ValidationError("--motion must be dx,dy,degrees") }
            let lights = try light.map { text in
                do { return try AmbientLight(parsing: text) } catch { throw ValidationError("--light \(error)") }
            }
            let c = SynthCondition(name: name, description: description ?? light.joined(separator: " + "), lights: lights,
                                   gradient: gradient, shadow: !noShadow, speculars: !noSpeculars,
                                   motion: RigidMotion(translationXPx: m[0], translationYPx: m[1], rotationDegrees: m[2]))
            jobs = [(c, out, seed)]
        }
        for (condition, folder, s) in jobs {
            let start = Date()
            let capture = try renderer.render(condition, width: width, height: height, seed: s,
                                              options: RenderOptions(noise: !noNoise))
            let rendered = Date()
            try capture.write(toDirectory: folder, compression: comp)
            progress.say(String(format: "%@: %dx%d rendered in %.2f s, written in %.2f s", folder, width, height,
                                rendered.timeIntervalSince(start), Date().timeIntervalSince(rendered)))
        }
    }
}
