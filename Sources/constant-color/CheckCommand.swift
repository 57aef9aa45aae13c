import ArgumentParser
import ConstantColor
import ConstantColorIO
import Foundation

/// `constant-color check`: exit 0 when the (region's) confidence meets the threshold, else 1.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a fuse report's confidence (or a region's) against a threshold.",
        discussion: """
            Without --roi, compares the report's centerWeightedMeanConfidence (the measurement \
            confidence's, the decision's basis) with the threshold (default: the one stored in the \
            report). With --roi x,y,w,h and --confidence MAP.tif, computes the center-weighted mean of \
            that rectangle of the map (SPEC 2.8 weights centered on it): the map of `fuse --confidence` \
            asks whether the region's colours can be trusted, that of `fuse --measurement-confidence` \
            whether the capture measured it well. Exit status 0 when it meets the threshold, 1 when \
            not, 2 on bad input.
            """)

    @Argument(help: "The report written by `fuse --report`.")
    var report: String

    @Option(parsing: .unconditional, help: "Threshold in [0, 1]; default: the report's threshold.")
    var threshold: Double?

    @Option(parsing: .unconditional, help: "Region of interest x,y,w,h in pixels of the map as shown (its TIFF Orientation applied, as by a viewer; needs --confidence).")
    var roi: String?

    @Option(help: "A confidence map written by `fuse --confidence` or `fuse --measurement-confidence`.")
    var confidence: String?

    func validate() throws {
        if let t = threshold, !(t >= 0 && t <= 1) { throw ValidationError("--threshold must be in [0, 1]") }
        if roi != nil && confidence == nil { throw ValidationError("--roi needs --confidence CONF.tif") }
        if roi == nil && confidence != nil { throw ValidationError("--confidence needs --roi x,y,w,h (without it the report's mean is checked)") }
    }

    func run() throws {
        let json = try JSONValue.read(path: report)
        let r = try JSONObjectReader(json, file: report)
        let stored = try r.number("centerWeightedMeanConfidence")
        let limit = try threshold ?? r.number("threshold")
        for (key, v) in [("centerWeightedMeanConfidence", stored), ("threshold", limit)] where !(v >= 0 && v <= 1) {
            throw JSONFileError.invalidValue(file: report, key: key, expected: "in [0, 1] (is \(v))")
        }
        var value = stored
        var what = "center-weighted mean confidence"
        if let roi, let confidence {
            let parts = roi.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 4, let x = parts[0], let y = parts[1], let w = parts[2], let h = parts[3],
                  x >= 0, y >= 0, w > 0, h > 0 else {
                throw ValidationError("--roi '\(roi)' is not x,y,w,h with x, y >= 0 and w, h > 0")
            }
            let map = try TIFFReader.read(path: confidence)
            guard map.image.channelCount == 1, map.isFloatingPoint, map.bitsPerSample == 32 else {
                throw CLIError(file: confidence, problem: "is not a confidence map (one channel of 32-bit float, from fuse --confidence)")
            }
            if let bad = map.image.samples.first(where: { !($0 >= 0 && $0 <= 1) }) {
                throw CLIError(file: confidence, problem: "is not a confidence map: it holds \(bad), outside [0, 1]")
            }
            // The map must be the report's run's: a map of another size is another capture. A report
            // without its size (every one fuse writes has it) cannot say, so it is refused, not trusted.
            let width = try r.number("width"), height = try r.number("height")
            if Int(exactly: width) != map.image.width || Int(exactly: height) != map.image.height {
                throw CLIError(file: confidence, problem: "is \(map.image.width)x\(map.image.height), but \(report) is of a \(String(format: "%g", width))x\(String(format: "%g", height)) run: not its confidence map")
            }
            // The region is given in the map as a viewer shows it: a map fuse wrote from frames stored
            // turned carries their Orientation tag (the weights are symmetric about the region's centre).
            let orientation = map.tiffOrientation
            let shown = orientation.exchangesAxes ? (map.image.height, map.image.width) : (map.image.width, map.image.height)
            guard x <= shown.0, w <= shown.0 - x, y <= shown.1, h <= shown.1 - y else {  // (no x + w: it may overflow)
                throw CLIError(file: confidence, problem: "region \(roi) lies outside the \(shown.0)x\(shown.1) map"
                               + (orientation == .topLeft ? "" : " as shown (stored \(map.image.width)x\(map.image.height), orientation \(orientation.value): \(orientation))"))
            }
            let stored = orientation.storedRectangle(x: x, y: y, width: w, height: h,
                                                     imageWidth: map.image.width, imageHeight: map.image.height)
            value = ConfidenceSummary.centerWeightedMean(map.image, region: stored)
            // Which of the run's two maps this is (their whole-frame means are in the report): the
            // colour confidence (`--confidence`) is the lower, and a region of it can fail where the
            // report's measurement confidence passed.
            let whole = ConfidenceSummary.centerWeightedMean(map.image)
            let colour = (r.members["colorConfidence"]?.object?["centerWeightedMean"]).flatMap(\.double)
            let measurement = r.members["centerWeightedMeanConfidence"]?.double
            let isColour = colour.map({ abs($0 - whole) < 1e-4 }) == true, isMeasurement = measurement.map({ abs($0 - whole) < 1e-4 }) == true
            let kind = isColour && !isMeasurement ? "colour " : isMeasurement && !isColour ? "measurement " : ""
            what = "center-weighted mean \(kind)confidence of region \(roi)"
            // A map of the run's size that is neither of its maps (another run's of the same size, or
            // one edited since): the region's verdict is then not this run's, and that is said.
            if let colour, let measurement, !isColour && !isMeasurement {
                Progress().say("warning: \(confidence)'s whole-frame center-weighted mean, " + String(format: "%.4f", whole)
                    + ", is neither \(report)'s measurement confidence (" + String(format: "%.4f", measurement)
                    + ") nor its colour confidence (" + String(format: "%.4f", colour) + "): is it this run's map?")
            }
        }
        let verdict = value >= limit
        print("\(what): \(String(format: "%.4f", value)) \(verdict ? ">=" : "<") threshold \(limit): \(verdict ? "constantColor" : "fallback")")
        if !verdict { throw CheckFailed(message: "\(report): confidence \(String(format: "%.4f", value)) is below the threshold \(limit)") }
    }
}

/// An input problem found by the command line itself, naming the file.
struct CLIError: Error, CustomStringConvertible {
    /// The file concerned.
    var file: String
    /// What is wrong with it.
    var problem: String
    var description: String { "\(file): \(problem)" }
}
