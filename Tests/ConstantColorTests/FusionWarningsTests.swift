import Testing
@testable import ConstantColor

/// The words of `fuse`'s warnings.
@Suite struct FusionWarningsTests {
    /// Stage 4c's shifts: one region's alone; regions of one object that share a shift said once with
    /// their count (the line had listed "(+22, +10), (+22, +10), (+22, +10), …"); distinct shifts in
    /// order of the largest region, at most three, then how many regions the others hold.
    @Test func displacementsAreSaidOncePerShift() {
        #expect(FusionWarnings.displacementSummary([[22.3, 9.6]]) == "(+22, +10) pixels")
        #expect(FusionWarnings.displacementSummary([[22, 10], [21.8, 10.2], [22, 10], [22.4, 9.7]]) == "(+22, +10) pixels in 4 of them")
        #expect(FusionWarnings.displacementSummary([[22, 10], [-5, 2], [22, 10]]) == "(+22, +10) pixels in 2 of them, (-5, +2) in 1")
        #expect(FusionWarnings.displacementSummary([[1, 0], [2, 0], [3, 0], [4, 0], [4, 0], [5, 0]])
                == "(+1, +0) pixels in 1 of them, (+2, +0) in 1, (+3, +0) in 1, other shifts in 3")
        #expect(FusionWarnings.displacementSummary([]) == "no shift")
    }
}
