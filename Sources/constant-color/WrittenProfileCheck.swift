import ConstantColor

/// The profiles a `calibrate` command is about to write, read back as `fuse` reads them
/// (`CameraProfile(json:file:)` and its `validate(source:)`, `FlashProfile(json:file:)`): a profile
/// `fuse` would refuse is refused before anything is written. Options given on the command line
/// (`--white-level 2e9`, `--read-noise 1e6`, `--reference-iso 0.5`) wrote profiles that every later
/// `fuse` refused (a probe, session 50).
enum WrittenProfileCheck {
    /// The reader's error, said as the calibration's: "nothing written".
    struct Refused: Error, CustomStringConvertible {
        var reason: String
        var description: String { "the profile would not be readable by fuse: \(reason); nothing written" }
    }

    /// Throws `Refused` where `flash` (to be written at `flashPath`) or `camera` (a profile and the
    /// path it is to be written at) does not read back.
    static func check(flash: FlashProfile, at flashPath: String, camera: (profile: CameraProfile, path: String)? = nil) throws {
        do {
            if let camera {
                try CameraProfile(json: camera.profile.json, file: camera.path).validate(source: camera.path)
            }
            _ = try FlashProfile(json: flash.json, file: flashPath)
        } catch {
            throw Refused(reason: "\(error)")
        }
    }
}
