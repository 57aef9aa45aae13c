/// Measurements of one quantity that each have their own standard error and may each be off by a
/// bias of their own (DerSimonian & Laird 1986, "Meta-analysis in clinical trials", Controlled
/// Clinical Trials 7(3)): Cochran's Q about the inverse-variance mean, the between-measurement
/// variance τ² = max(0, (Q − (k − 1)) / (Σw − Σw²/Σw)), and the random-effects mean weighted by
/// 1/(σᵢ² + τ²), whose standard error 1/√Σ 1/(σᵢ² + τ²) counts the scatter beyond the stated errors.
enum RandomEffects {
    /// Cochran's Q of `samples` about their inverse-variance mean, and τ².
    static func heterogeneity(_ samples: [(value: Double, sigma: Double)]) -> (q: Double, tau2: Double) {
        let w = samples.map { 1 / ($0.sigma * $0.sigma) }
        let sw = w.reduce(0, +), sw2 = w.reduce(0) { $0 + $1 * $1 }
        let mean = zip(w, samples).reduce(0) { $0 + $1.0 * $1.1.value } / sw
        let q = zip(w, samples).reduce(0) { $0 + $1.0 * ($1.1.value - mean) * ($1.1.value - mean) }
        return (q, max(0, (q - Double(samples.count - 1)) / (sw - sw2 / sw)))
    }

    /// The random-effects mean of `samples` (at least two, every σ positive and finite), its
    /// standard error and τ.
    static func mean(_ samples: [(value: Double, sigma: Double)]) -> (mean: Double, standardError: Double, tau: Double) {
        let tau2 = heterogeneity(samples).tau2
        let v = samples.map { 1 / ($0.sigma * $0.sigma + tau2) }
        let sv = v.reduce(0, +)
        let mean = zip(v, samples).reduce(0) { $0 + $1.0 * $1.1.value } / sv
        return (mean, 1 / sv.squareRoot(), tau2.squareRoot())
    }
}
