/// The TIFF Orientation tag (274, TIFF 6.0 section 8): where the stored row 0 and column 0 are
/// meant to be shown. Files are read and processed as stored — the stored rows are the sensor's,
/// which a rolling shutter's lines and a flash's shading map follow — and outputs keep their
/// input's orientation, so that a viewer shows them as it shows the input.
public struct TIFFOrientation: Sendable, Equatable, CustomStringConvertible {
    /// The tag's value, 1…8.
    public let value: Int

    /// The orientation with tag value `value`; nil outside 1…8.
    public init?(_ value: Int) {
        guard (1...8).contains(value) else { return nil }
        self.value = value
    }

    /// Row 0 at the top, column 0 at the left: shown as stored.
    public static let topLeft = TIFFOrientation(1)!

    /// Where the stored row 0 and column 0 are shown, in TIFF 6.0's words.
    public var description: String {
        ["row 0 top, column 0 left", "row 0 top, column 0 right", "row 0 bottom, column 0 right",
         "row 0 bottom, column 0 left", "row 0 left, column 0 top", "row 0 right, column 0 top",
         "row 0 right, column 0 bottom", "row 0 left, column 0 bottom"][value - 1]
    }

    /// Whether the image is shown turned by a quarter (5…8): its stored rows are shown as columns.
    public var exchangesAxes: Bool { value >= 5 }

    /// The stored pixel shown at (`u`, `v`) (column, row of the image as shown) of a stored image
    /// `width × height` (as shown it is `height × width` when `exchangesAxes`).
    public func storedPixel(shownX u: Int, shownY v: Int, width w: Int, height h: Int) -> (x: Int, y: Int) {
        switch value {
        case 1: return (u, v)
        case 2: return (w - 1 - u, v)
        case 3: return (w - 1 - u, h - 1 - v)
        case 4: return (u, h - 1 - v)
        case 5: return (v, u)
        case 6: return (v, h - 1 - u)
        case 7: return (w - 1 - v, h - 1 - u)
        default: return (w - 1 - v, u)
        }
    }

    /// The stored rectangle (x, y, width, height) under the rectangle `x, y, width × height` of the
    /// image as shown, for a stored image `imageWidth × imageHeight`. The rectangle must lie in
    /// the image as shown.
    public func storedRectangle(x: Int, y: Int, width: Int, height: Int,
                                imageWidth w: Int, imageHeight h: Int) -> (x: Int, y: Int, width: Int, height: Int) {
        let a = storedPixel(shownX: x, shownY: y, width: w, height: h)
        let b = storedPixel(shownX: x + width - 1, shownY: y + height - 1, width: w, height: h)
        return (min(a.x, b.x), min(a.y, b.y), abs(a.x - b.x) + 1, abs(a.y - b.y) + 1)
    }
}
