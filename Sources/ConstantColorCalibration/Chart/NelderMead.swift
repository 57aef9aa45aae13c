/// Derivative-free minimization by the Nelder–Mead simplex method (Nelder & Mead 1965, "A simplex
/// method for function minimization", Computer Journal 7(4); coefficients of Lagarias et al. 1998:
/// reflection 1, expansion 2, contraction ½, shrink ½).
public enum NelderMead {
    /// The best point found and its cost.
    public struct Result: Sendable {
        /// The minimizer found.
        public var point: [Double]
        /// Its cost.
        public var cost: Double
        /// Cost evaluations used.
        public var evaluations: Int
    }

    /// Minimizes `cost` from `start`, with an initial simplex of `step` along each axis; restarts
    /// from the best point `restarts` times (a collapsed simplex can stall away from the minimum).
    /// Stops a run when the simplex's costs span less than `tolerance` or after `maxEvaluations`.
    /// The result is never worse than `start`.
    public static func minimize(_ cost: ([Double]) -> Double, start: [Double], step: [Double],
                                tolerance: Double = 1e-12, maxEvaluations: Int = 20_000, restarts: Int = 2) -> Result {
        precondition(start.count == step.count && !start.isEmpty)
        var best = start, bestCost = cost(start), evaluations = 1
        for _ in 0...restarts {
            let n = best.count
            var simplex = [best]
            for i in 0..<n { var p = best; p[i] += step[i]; simplex.append(p) }
            var costs = simplex.map(cost)
            evaluations += n
            while evaluations < maxEvaluations {
                let order = costs.indices.sorted { costs[$0] < costs[$1] }
                simplex = order.map { simplex[$0] }; costs = order.map { costs[$0] }
                if costs[n] - costs[0] <= tolerance * (1 + abs(costs[0])) { break }
                var centroid = [Double](repeating: 0, count: n)
                for p in simplex.dropLast() { for i in 0..<n { centroid[i] += p[i] / Double(n) } }
                func along(_ t: Double) -> [Double] { (0..<n).map { centroid[$0] + t * (simplex[n][$0] - centroid[$0]) } }
                let reflected = along(-1), fr = cost(reflected); evaluations += 1
                if fr < costs[0] {
                    let expanded = along(-2), fe = cost(expanded); evaluations += 1
                    if fe < fr { simplex[n] = expanded; costs[n] = fe } else { simplex[n] = reflected; costs[n] = fr }
                } else if fr < costs[n - 1] {
                    simplex[n] = reflected; costs[n] = fr
                } else {
                    let contracted = fr < costs[n] ? along(-0.5) : along(0.5)
                    let fc = cost(contracted); evaluations += 1
                    if fc < min(fr, costs[n]) {
                        simplex[n] = contracted; costs[n] = fc
                    } else {
                        for k in 1...n {
                            simplex[k] = (0..<n).map { simplex[0][$0] + 0.5 * (simplex[k][$0] - simplex[0][$0]) }
                            costs[k] = cost(simplex[k])
                        }
                        evaluations += n
                    }
                }
            }
            if let k = costs.indices.min(by: { costs[$0] < costs[$1] }), costs[k] < bestCost {
                best = simplex[k]; bestCost = costs[k]
            }
        }
        return Result(point: best, cost: bestCost, evaluations: evaluations)
    }
}
