import ConstantColorSynth

/// The test targets' one deterministic generator: the library's SplitMix64 (Steele, Lea & Flood
/// 2014), so that property tests are reproducible. Each target adds the draws it needs (uniform,
/// normal, Poisson) as extensions.
public typealias SplitMix64 = ConstantColorSynth.SplitMix64
