/// The axis along which a rolling shutter read the frame out, line by line: the lines are rows
/// when the stored pixels are as the sensor read them, columns when a raw converter turned a
/// portrait capture upright. Under a flickering light each line integrates a different part of the
/// light's cycle, so the banding runs across this axis's lines (`AmbientRatioEstimate`).
public enum ReadoutAxis: String, Sendable, Codable, Equatable {
    /// Rows, top to bottom (r(y)).
    case rows
    /// Columns, left to right (r(x)).
    case columns
}
