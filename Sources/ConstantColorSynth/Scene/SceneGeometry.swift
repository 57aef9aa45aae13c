/// What stands in front of the camera: a plane facing it, covered by a flat grey background with
/// either a ColorChecker chart (6 × 4 patches with gaps) or a single small bright dot (for
/// measuring the motion between frames). Coordinates are the flash frame's continuous pixel
/// coordinates (x right, y down, pixel (i, j) covers [i, i+1) × [j, j+1), SPEC 4.3).
public struct SceneGeometry: Sendable, Equatable {
    /// What the plane shows.
    public enum Content: Sendable, Equatable {
        /// The 24-patch chart centred in the frame.
        case colorChecker
        /// One disc of material 1 (radius in pixels) at a point, for registration tests.
        case pointTarget(centerX: Double, centerY: Double, radiusPx: Double)
        /// A uniform grey card filling the frame (a flat-field capture for `calibrate flat-field`).
        case greyCard
    }

    /// Frame width in pixels.
    public let width: Int
    /// Frame height in pixels.
    public let height: Int
    /// The content.
    public let content: Content
    /// Distance between patch centres, pixels.
    public let patchPitchPx: Double
    /// Side of a patch, pixels (the gap is `patchPitchPx − patchSidePx`).
    public let patchSidePx: Double
    /// Top-left corner of the first patch.
    public let chartOriginX: Double, chartOriginY: Double
    /// 1 / pitch and side / pitch, for the per-sample material lookup.
    let inversePitch: Double, sideOverPitch: Double

    /// Chart columns and rows (ColorChecker Classic order: row by row from "dark skin").
    public static let columns = 6, rows = 4

    /// Lays out the content for a frame: patch pitch 0.13 × width (at most 0.19 × height), patch side
    /// 80 % of the pitch, chart centred.
    public init(width: Int, height: Int, content: Content = .colorChecker) {
        self.width = width; self.height = height; self.content = content
        let pitch = min(0.13 * Double(width), 0.19 * Double(height))
        patchPitchPx = pitch
        patchSidePx = 0.8 * pitch
        let chartW = pitch * Double(Self.columns - 1) + patchSidePx
        let chartH = pitch * Double(Self.rows - 1) + patchSidePx
        chartOriginX = (Double(width) - chartW) / 2
        chartOriginY = (Double(height) - chartH) / 2
        inversePitch = 1 / pitch
        sideOverPitch = 0.8
    }

    /// Number of materials: 0 = background, 1…24 = patches (chart) or 1 = the dot (point target);
    /// the grey card has the background only.
    public var materialCount: Int {
        switch content {
        case .colorChecker: return 1 + Self.columns * Self.rows
        case .pointTarget: return 2
        case .greyCard: return 1
        }
    }

    /// The material at a point of the plane.
    public func material(x: Double, y: Double) -> Int {
        switch content {
        case .colorChecker:
            let u = (x - chartOriginX) * inversePitch, v = (y - chartOriginY) * inversePitch
            guard u >= 0, v >= 0, u < Double(Self.columns), v < Double(Self.rows) else { return 0 }
            let c = Int(u), r = Int(v)
            guard u - Double(c) < sideOverPitch, v - Double(r) < sideOverPitch else { return 0 }
            return 1 + r * Self.columns + c
        case .pointTarget(let cx, let cy, let radius):
            let dx = x - cx, dy = y - cy
            return dx * dx + dy * dy < radius * radius ? 1 : 0
        case .greyCard: return 0
        }
    }

    /// Centre of patch `i` (0…23).
    public func patchCenter(_ i: Int) -> (x: Double, y: Double) {
        let c = i % Self.columns, r = i / Self.columns
        return (chartOriginX + Double(c) * patchPitchPx + patchSidePx / 2,
                chartOriginY + Double(r) * patchPitchPx + patchSidePx / 2)
    }

    /// Half side of the central square the truth file declares for sampling: 30 % of the patch side,
    /// leaving a margin for edge blur and motion.
    public var samplingHalfSizePx: Double { 0.3 * patchSidePx }

    /// The chart's bounding box (x0, y0, x1, y1).
    public var chartBounds: (x0: Double, y0: Double, x1: Double, y1: Double) {
        (chartOriginX, chartOriginY,
         chartOriginX + patchPitchPx * Double(Self.columns - 1) + patchSidePx,
         chartOriginY + patchPitchPx * Double(Self.rows - 1) + patchSidePx)
    }

    /// Points where gaps between four patches meet (centres of the gap crossings), for highlights.
    public func gapCrossing(column: Int, row: Int) -> (x: Double, y: Double) {
        let g = (patchPitchPx - patchSidePx) / 2
        return (chartOriginX + Double(column) * patchPitchPx + patchSidePx + g,
                chartOriginY + Double(row) * patchPitchPx + patchSidePx + g)
    }
}

/// A rigid motion of the camera between the flash and the ambient frame, as the map from flash-frame
/// to ambient-frame pixel coordinates: p_a = R(θ)(p_f − c) + c + t, c the frame centre.
public struct RigidMotion: Sendable, Equatable {
    /// Translation in pixels.
    public var translationXPx: Double, translationYPx: Double
    /// Rotation in degrees (positive turns x towards y, i.e. clockwise on screen).
    public var rotationDegrees: Double

    /// Creates a motion.
    public init(translationXPx: Double, translationYPx: Double, rotationDegrees: Double) {
        self.translationXPx = translationXPx; self.translationYPx = translationYPx; self.rotationDegrees = rotationDegrees
    }

    /// No motion.
    public static let none = RigidMotion(translationXPx: 0, translationYPx: 0, rotationDegrees: 0)

    /// The 3×3 homogeneous matrix (rows) mapping flash-frame to ambient-frame coordinates.
    public func ambientFromFlash(width: Int, height: Int) -> [[Double]] {
        let th = rotationDegrees * Double.pi / 180
        let c = cos(th), s = sin(th)
        let cx = Double(width) / 2, cy = Double(height) / 2
        return [[c, -s, cx + translationXPx - c * cx + s * cy],
                [s, c, cy + translationYPx - s * cx - c * cy],
                [0, 0, 1]]
    }

    /// The inverse map, ambient-frame to flash-frame (scene) coordinates.
    public func flashFromAmbient(width: Int, height: Int) -> [[Double]] {
        let m = ambientFromFlash(width: width, height: height)
        // Inverse of [R t; 0 1] is [Rᵀ −Rᵀt; 0 1].
        let (a, b, c, d, tx, ty) = (m[0][0], m[0][1], m[1][0], m[1][1], m[0][2], m[1][2])
        return [[a, c, -(a * tx + c * ty)], [b, d, -(b * tx + d * ty)], [0, 0, 1]]
    }
}

import Foundation
