import ArgumentParser
import ConstantColor
import ConstantColorCalibration
import ConstantColorIO
import Foundation

/// `constant-color calibrate flat-field` (issue 7): the flash's colour and level across the frame,
/// from a flash-only capture of a uniform grey card, added to an existing flash profile.
struct CalibrateFlatField: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flat-field",
        abstract: "Add a spatial shading map (colour and level across the frame) to a flash profile.",
        discussion: """
            CAPTURE.tif is a linear camera-RGB TIFF of a uniform grey card filling the frame, lit by \
            the flash alone, with the camera where it will be used. The signal is the capture minus \
            --dark DARK.tif (lens capped, same size; subtracted pixel by pixel) or minus the camera \
            profile's black level. Each cell of a --grid CxR partition (3 to 256 a side) gives the \
            robust mean of its unclipped pixels; the map holds each node's camera-RGB white and green \
            level relative to the frame centre (so the card's own tint cancels), the white relative to \
            the flash's where the profile's white was measured when the profile says where \
            (whiteReference: calibrate chart's neutral patches; a flat field of another aspect than \
            that chart capture is then refused). fuse then divides the dark-room \
            estimate and the gap fill's flash frame by the local white (colour shading, always) and, \
            with fuse --flatten-flash-falloff, by the level. A capture that is clipped, too dark or \
            not a uniform card is refused (exit 2). Where the room cannot be made dark, --ambient \
            AMBIENT.tif, the same card without the flash, camera unmoved, is subtracted after exposure \
            normalization (room light that rises smoothly across the card passes the uniformity checks \
            and bends the map). Shoot the card at the focal length the pairs will be shot at: the map \
            is laid on the frame. --flash-out is the --flash profile with \
            "shading" added (written atomically, never over an input).
            """)

    @Argument(help: "The flat-field capture (linear camera-RGB TIFF).") var capture: String
    @Option(help: "Camera profile (black and white level, noise model).") var camera: String
    @Option(name: .customLong("flash"), help: "The flash profile to add the map to.") var flashProfile: String
    @Option(help: "Flash profile output (JSON).") var flashOut: String
    @Option(help: "Dark frame (lens capped, same size), subtracted pixel by pixel instead of the black level.") var dark: String?
    @Option(help: "Ambient-only frame of the same card (flash off, camera unmoved), subtracted after exposure normalization.")
    var ambient: String?
    @Option(parsing: .unconditional, help: "Ambient frame exposure T,N,ISO (default: EXIF).") var ambientExposure: String?
    @Option(parsing: .unconditional, help: "Grid columns x rows.") var grid: String = "16x12"
    @Option(name: [.customLong("exposure"), .customLong("capture-exposure")], parsing: .unconditional,
            help: "Capture exposure T,N,ISO (default: EXIF).") var exposure: String?
    @Option(parsing: .unconditional, help: "Dark frame exposure T,N,ISO (default: EXIF).") var darkExposure: String?
    @Flag(help: "Invert a non-linear ICC profile's curves instead of refusing the file.") var linearizeIcc = false

    /// The grid's columns and rows.
    var gridSize: (columns: Int, rows: Int)? {
        let p = grid.lowercased().split(separator: "x").map { Int($0) }
        guard p.count == 2, let c = p[0], let r = p[1], c >= 3, r >= 3, c <= 256, r <= 256 else { return nil }
        return (c, r)
    }

    func validate() throws {
        // Two nodes on an axis lie symmetric about the frame's centre: a shading about the flash's
        // axis is the same at both, and the map relative to their mean says nothing of it.
        guard gridSize != nil else {
            throw ValidationError("--grid must be CxR with 3 to 256 columns and rows, e.g. 16x12 (with 2 on an axis the nodes lie symmetric about the centre: a shading about the flash's axis cancels)")
        }
        if darkExposure != nil && dark == nil { throw ValidationError("--dark-exposure needs --dark") }
        if ambientExposure != nil && ambient == nil { throw ValidationError("--ambient-exposure needs --ambient") }
    }

    func run() throws {
        let progress = Progress()
        let inputs = [capture, camera, flashProfile] + [dark, ambient].compactMap { $0 }
        if AtomicFile.isProtected(flashOut, protectedPaths: inputs) {
            throw CLIError(file: flashOut, problem: "is an input; outputs never overwrite inputs")
        }
        try AtomicFile.checkDestination(flashOut)
        let cameraProfile = try CameraProfile(path: camera)
        var profile = try FlashProfile(path: flashProfile)
        // (Any orientation: the map is laid on the stored pixels, as fuse processes a pair.)
        let whiteLevel = (cameraProfile.whiteLevel, camera)
        let captureLoaded = try InputFrame.load(path: capture, role: .capture, exposureOverride: exposure, linearizeICC: linearizeIcc,
                                                 whiteLevel: whiteLevel)
        let frame = captureLoaded.frame
        // The frames' warnings and the dark frame's line are said once the card has been measured: a
        // refused run prints its one error line alone.
        var lines = [ProfileWarnings.cameraMismatch(camera: cameraProfile, cameraPath: camera, flash: profile, flashPath: flashProfile)]
            .compactMap { $0 } + captureLoaded.warnings
        var darkImage: PlanarImage?
        if let path = dark {
            let loaded = try InputFrame.load(path: path, role: .dark, exposureOverride: darkExposure, linearizeICC: linearizeIcc,
                                              whiteLevel: whiteLevel)
            let d = loaded.frame
            lines += loaded.warnings
            let measured = try DarkFrame(frame: d.image, iso: d.exposure.isoSpeed, blackLevel: cameraProfile.blackLevel,
                                         expectedWidth: frame.image.width, expectedHeight: frame.image.height, file: path)
            lines.append(String(format: "dark frame: black level %.2f DN, read noise %.3f DN; subtracted pixel by pixel",
                                measured.blackLevelDN, measured.readNoiseDN))
            lines += DarkFrameExposureWarnings.lines(
                darkTimeSeconds: d.exposure.exposureTimeSeconds, darkISO: measured.iso,
                captureTimeSeconds: frame.exposure.exposureTimeSeconds, captureISO: frame.exposure.isoSpeed,
                isoConsequence: "its black level and fixed pattern are another ISO's, and it is subtracted pixel by pixel as they are; take it at the capture's ISO")
            darkImage = d.image
        }
        var ambientImage: PlanarImage?, ambientScale = 1.0
        if let path = ambient {
            try refuseCaptureAsAmbient(path, capture: capture, named: "flat-field capture", twin: "the same card without the flash, camera unmoved")
            let loaded = try InputFrame.load(path: path, role: .ambient, exposureOverride: ambientExposure, linearizeICC: linearizeIcc,
                                              whiteLevel: whiteLevel)
            lines += loaded.warnings
            ambientImage = loaded.frame.image
            ambientScale = frame.exposure.radiometricScale / loaded.frame.exposure.radiometricScale
        }
        let (columns, rows) = gridSize!
        let unitsWarnings = captureLoaded.unitsWarnings
        let fit: FlatFieldCalibration
        do {
            fit = try FlatFieldCalibration(capture: frame.image, dark: darkImage, ambient: ambientImage, ambientToCaptureScale: ambientScale,
                                           blackLevel: cameraProfile.blackLevel,
                                           whiteLevel: cameraProfile.whiteLevel, noise: cameraProfile.noise,
                                           iso: frame.exposure.isoSpeed, columns: columns, rows: rows, file: capture)
        } catch {
            // A card refused (too dark, clipped) in a file whose samples are not in the profile's
            // units (8 bits, floats scaled 0…1): that likelier cause first, the measurement it upset after.
            // (`FlatFieldCalibration` throws `FlatFieldError` only.)
            guard !unitsWarnings.isEmpty else { throw error }
            let units = unitsWarnings.map { $0.replacingOccurrences(of: "warning: ", with: "") }
            throw CLIError(file: capture, problem: "\(units.joined(separator: "; ")); so it measured: \(error.problem)")
        }
        // The map's white relative to the flash's where the profile's white was measured (a chart's
        // neutral patches; else the centre): at those places the correction is 1.
        if let reference = profile.whiteReference {
            guard reference.hasAspect(width: frame.image.width, height: frame.image.height) else {
                throw CLIError(file: flashProfile, problem: "its white was measured on a \(reference.captureSize.x)x\(reference.captureSize.y) chart capture, the flat field \(capture) is \(frame.image.width)x\(frame.image.height): another aspect (rotated?) puts the patches it was measured on elsewhere; use a flat field of the chart capture's orientation")
            }
        }
        if captureLoaded.focalLengthMillimetres == nil {
            lines.append("note: \(capture) records no focal length (EXIF FocalLength): fuse cannot check that a pair is shot at the card's field of view, which the map needs")
        }
        for line in lines { progress.say(line) }
        var shadingMap = fit.shading
        shadingMap.captureFocalLengthMillimetres = captureLoaded.focalLengthMillimetres
        profile = profile.adding(shading: shadingMap)
        let shading = profile.shading!
        func num(_ v: Double) -> JSONValue { .number(v) }
        profile.metadata["flatField"] = .object([
            "capture": .string(capture), "dark": dark.map(JSONValue.string) ?? .null, "ambient": ambient.map(JSONValue.string) ?? .null,
            "grid": .array([num(Double(columns)), num(Double(rows))]),
            "medianGreenSignalDN": num(fit.medianGreenSignalDN), "clippedFraction": num(fit.clippedFraction),
            "maxRelativeWhiteStandardError": num(fit.maxRelativeWhiteStandardError),
            "maxLogLevelResidual": num(fit.maxLogLevelResidual),
            "whiteRelativeTo": .string(profile.whiteReference.map { "the median over the \($0.relativePositions.count) positions of whiteReference (where the profile's white was measured)" } ?? "the frame centre"),
        ])
        try WrittenProfileCheck.check(flash: profile, at: flashOut)
        try AtomicFile.writeJSON([(profile.json, flashOut)], protectedPaths: inputs)
        let corners = [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)].map { shading.value(atRelativeX: $0.0, y: $0.1) }
        let blue = corners.map(\.white.z), red = corners.map(\.white.x), level = corners.map(\.level)
        progress.say(String(format: "%dx%d shading map: corners' white relative to \(profile.whiteReference == nil ? "the centre's" : "the profile's white patches'"): red %.3f-%.3f, blue %.3f-%.3f; level relative to the centre's %.3f-%.3f (node noise <= %.2f %%)",
                            columns, rows, red.min()!, red.max()!, blue.min()!, blue.max()!, level.min()!, level.max()!,
                            100 * fit.maxRelativeWhiteStandardError))
    }
}
