/// The physical size of a pixel: XResolution (tag 282), YResolution (283) and ResolutionUnit (296),
/// TIFF 6.0 section 8. Pixels per unit along a stored row (x) and a stored column (y).
public struct TIFFResolution: Sendable, Equatable {
    /// ResolutionUnit's values.
    public enum Unit: Int, Sendable {
        /// No absolute unit: only the pixels' aspect ratio is meant.
        case none = 1
        /// Pixels per inch (TIFF's default where the unit tag is absent).
        case inch = 2
        /// Pixels per centimeter.
        case centimeter = 3
    }

    /// Pixels per unit along a stored row.
    public var x: Double
    /// Pixels per unit along a stored column.
    public var y: Double
    /// The unit of `x` and `y`.
    public var unit: Unit

    /// Creates a resolution.
    public init(x: Double, y: Double, unit: Unit) {
        self.x = x
        self.y = y
        self.unit = unit
    }

    /// No physical size known: square pixels (1 per unit, unit none), which TIFF 6.0's baseline
    /// (the three tags are required) lets a writer say without inventing a print size.
    public static let unspecified = TIFFResolution(x: 1, y: 1, unit: .none)

    /// Whether both resolutions are finite and positive (a file's tags can hold anything).
    public var isUsable: Bool { x.isFinite && y.isFinite && x > 0 && y > 0 }
}
