/// The sensor's noise in data numbers (DN), a Poisson–Gaussian model (Foi et al. 2008,
/// "Practical Poissonian-Gaussian noise modeling and fitting for single-image raw-data").
///
/// At the reference ISO a black-subtracted signal `s` (DN) has variance
/// `σ² = readNoiseDN² + s / gainElectronsPerDN`. At ISO `i` the analogue gain is `k = i / referenceISO`:
/// electrons per DN fall by `k` and the read noise, referred to the input (constant in electrons),
/// is amplified by `k`: `σ² = (k · readNoiseDN)² + k · s / gainElectronsPerDN`.
///
/// `correlation` says how neighbouring pixels' noise is correlated (`NoiseCorrelation`; independent
/// for raw data, not for demosaiced frames).
public struct NoiseModel: Sendable, Equatable {
    /// Read noise in DN at the reference ISO.
    public var readNoiseDN: Double
    /// Conversion gain at the reference ISO, electrons per DN.
    public var gainElectronsPerDN: Double
    /// The ISO at which the two values above hold (100 unless stated).
    public var referenceISO: Double
    /// The spatial correlation of the noise (`.independent` unless measured).
    public var correlation: NoiseCorrelation

    /// Creates a noise model.
    public init(readNoiseDN: Double, gainElectronsPerDN: Double, referenceISO: Double = 100,
                correlation: NoiseCorrelation = .independent) {
        self.readNoiseDN = readNoiseDN
        self.gainElectronsPerDN = gainElectronsPerDN
        self.referenceISO = referenceISO
        self.correlation = correlation
    }

    /// The two coefficients of `σ²(s) = a + b·s` (DN², DN) at ISO `iso`.
    public func coefficients(iso: Double) -> (readVarianceDN2: Double, shotDNPerDN: Double) {
        let k = iso / referenceISO
        return ((k * readNoiseDN) * (k * readNoiseDN), k / gainElectronsPerDN)
    }

    /// Variance in DN² of a black-subtracted signal `signalDN` at ISO `iso`.
    public func variance(signalDN: Double, iso: Double) -> Double {
        let c = coefficients(iso: iso)
        return c.readVarianceDN2 + c.shotDNPerDN * max(0, signalDN)
    }
}
