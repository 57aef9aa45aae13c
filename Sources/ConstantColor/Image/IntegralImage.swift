/// Summed-area table of a plane (Crow 1984, "Summed-area tables for texture mapping"): the sum over
/// any axis-aligned rectangle in four reads. Sums in Double, from the top left corner; a rectangle's
/// sum subtracts, so moments from it (`mean(x²) − mean(x)²`) keep the rounding of the corner sums —
/// small in Double for planes of block means, unlike Float (`BoxFilter`, which does not subtract).
package struct IntegralImage {
    private let sums: [Double]
    private let width: Int

    /// The table of `plane` (`width × height`, row-major).
    package init(_ plane: [Double], width w: Int, height h: Int) {
        width = w
        var s = [Double](repeating: 0, count: (w + 1) * (h + 1))
        for y in 0..<h {
            var row = 0.0
            for x in 0..<w {
                row += plane[y * w + x]
                s[(y + 1) * (w + 1) + x + 1] = s[y * (w + 1) + x + 1] + row
            }
        }
        sums = s
    }

    /// The table of a plane of counts (exact in Double up to 2⁵³).
    package init(_ plane: [Int], width w: Int, height h: Int) { self.init(plane.map(Double.init), width: w, height: h) }

    /// The sum over `columns × rows` (both within the plane, not empty).
    package func sum(columns: Range<Int>, rows: Range<Int>) -> Double {
        let s = width + 1
        return sums[rows.upperBound * s + columns.upperBound] - sums[rows.lowerBound * s + columns.upperBound]
            - sums[rows.upperBound * s + columns.lowerBound] + sums[rows.lowerBound * s + columns.lowerBound]
    }

    /// The sum over the window.
    package func sum(_ b: CellWindow) -> Double { sum(columns: b.x0..<(b.x1 + 1), rows: b.y0..<(b.y1 + 1)) }
}

/// A square window around a cell, clipped to the plane; `extra` widens it per axis (x, y).
package struct CellWindow {
    /// The window's first and last column and row (inclusive).
    package let x0: Int, y0: Int, x1: Int, y1: Int
    /// The window of `radius` (plus `extra`) around (x, y) on a `width × height` plane.
    package init(x: Int, y: Int, radius: Int, width: Int, height: Int, extra: (Int, Int) = (0, 0)) {
        x0 = max(0, x - radius - extra.0); x1 = min(width - 1, x + radius + extra.0)
        y0 = max(0, y - radius - extra.1); y1 = min(height - 1, y + radius + extra.1)
    }
    /// Cells in the window.
    package var count: Int { (x1 - x0 + 1) * (y1 - y0 + 1) }
}
