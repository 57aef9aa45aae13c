/// Golden-section search for the minimum of a unimodal function on an interval (Kiefer 1953,
/// "Sequential minimax search for a maximum", Proc. AMS 4): each step keeps the part of the
/// bracket holding the smaller of two interior values, shrinking it by (√5 − 1)/2.
enum GoldenSection {
    /// The better of the last two interior points after `iterations` steps on [lo, hi].
    static func minimum(_ lo: Double, _ hi: Double, iterations: Int, _ f: (Double) -> Double) -> Double {
        var lo = lo, hi = hi
        let g = (5.0.squareRoot() - 1) / 2
        var c = hi - g * (hi - lo), d = lo + g * (hi - lo), fc = f(c), fd = f(d)
        for _ in 0..<iterations {
            if fc < fd { hi = d; d = c; fd = fc; c = hi - g * (hi - lo); fc = f(c) }
            else { lo = c; c = d; fc = fd; d = lo + g * (hi - lo); fd = f(d) }
        }
        return fc < fd ? c : d
    }
}
