import Foundation
import Testing
import ConstantColor
@testable import ConstantColorSynth

@Suite struct SpectralTests {
    let lib = Fixture.library

    @Test func resamplingInterpolatesLinearlyAndExtrapolates() throws {
        let d = try SpectralDistribution(wavelengthsNm: [400, 420, 440], values: [1, 3, 2], name: "t")
        #expect(d.value(atNm: 410) == 2)
        #expect(d.value(atNm: 430) == 2.5)
        #expect(d.value(atNm: 360) == 1)      // constant below the range (CIE 015:2004 §7.2.2.1)
        #expect(d.value(atNm: 830) == 2)
        let z = try SpectralDistribution(wavelengthsNm: [400, 420, 440], values: [1, 3, 2], name: "t", extrapolation: .zero)
        #expect(z.value(atNm: 399) == 0 && z.value(atNm: 441) == 0 && z.value(atNm: 400) == 1)
        #expect(throws: SpectralGridError.repeatedWavelength(nm: 500)) {
            try SpectralDistribution(wavelengthsNm: [400, 500, 500], values: [1, 2, 3], name: "t")
        }
        // SPEC 4.2's "any grid": a table listed from red to blue is the same table.
        #expect(try SpectralDistribution(wavelengthsNm: [440, 400, 420], values: [2, 1, 3], name: "t") == d)
        #expect(throws: SpectralGridError.notFinite) {
            try SpectralDistribution(wavelengthsNm: [400, .nan, 440], values: [1, 2, 3], name: "t")
        }
        #expect(throws: SpectralGridError.outOfRange(firstNm: 300, lastNm: 500)) {
            try SpectralDistribution(wavelengthsNm: [300, 500], values: [1, 2], name: "t")
        }
    }

    @Test func loaderErrorsNameFileAndKey() throws {
        let dir = Fixture.temporaryDirectory("bad-spectra")
        defer { Fixture.removeTemporaryDirectory(dir) }
        let path = dir + "/bad.json"
        try Data(#"{"wavelengthsNm": [400, 410], "values": [1]}"#.utf8).write(to: URL(fileURLWithPath: path))
        do {
            _ = try SpectralDistribution(path: path)
            Issue.record("expected an error")
        } catch let e as SpectralFileError {
            #expect(e.description.contains(path) && e.description.contains("'values'"))
        }
        try Data(#"{"wavelengthsNm": [400, 410], "red": [1, 2], "green": [1, 2]}"#.utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: JSONFileError.missingKey(file: path, key: "blue")) { try CameraSensitivity(path: path) }
    }

    /// CIE 015:2004: D65 is the daylight formula at 6500 × 1.4388/1.4380 K; the tabulated values are
    /// reproduced to 1e-3 relative (they were computed from the same basis with rounded M₁, M₂).
    @Test func daylightFromBasisMatchesTabulatedD65() throws {
        let d = try LightSourceModel.daylight(cctKelvin: 6500 * 1.4388 / 1.4380, basis: lib.daylightBasis)
        for nm in stride(from: 360.0, through: 780, by: 5) {
            let a = d.value(atNm: nm), b = lib.d65.value(atNm: nm)
            #expect(abs(a / b - 1) < 1e-3, "at \(nm) nm: \(a) vs \(b)")
        }
    }

    /// CIE illuminant A is the Planckian radiator at 2848 K with c₂ = 1.435e-2 m·K (CIE 015:2004 eq. 3.1), i.e. 2856 K on ITS-90.
    @Test func planckMatchesIlluminantA() throws {
        let a = try lib.distribution(file: "illuminant-a.json")
        let p = LightSourceModel.planckian(temperatureKelvin: 2848, c2: 1.435e-2)
        let k = a.value(atNm: 560) / p.value(atNm: 560)
        for nm in stride(from: 360.0, through: 830, by: 5) {
            #expect(abs(k * p.value(atNm: nm) / a.value(atNm: nm) - 1) < 1e-4, "at \(nm) nm")
        }
    }

    /// Chromaticities of CIE 015:2004 Table T.3: A (0.44757, 0.40745), D65 (0.31272, 0.32903).
    @Test func chromaticitiesMatchCIE15() throws {
        let a = ChromaticityCoordinates.xy(lib.cmfs.tristimulus(of: LightSourceModel.planckian(temperatureKelvin: 2848, c2: 1.435e-2)))
        #expect(abs(a.x - 0.44757) < 1e-4 && abs(a.y - 0.40745) < 1e-4, "A: \(a)")
        let d = ChromaticityCoordinates.xy(lib.cmfs.tristimulus(of: lib.d65))
        #expect(abs(d.x - 0.31272) < 1e-4 && abs(d.y - 0.32903) < 1e-4, "D65: \(d)")
        let p = lib.locus.cctAndDuv(of: lib.d65)
        #expect(abs(p.cctKelvin - 6504) < 2 && abs(p.duv - 0.0032) < 2e-4, "D65 CCT/Duv: \(p)")
        let q = lib.locus.cctAndDuv(of: LightSourceModel.planckian(temperatureKelvin: 3000))
        #expect(abs(q.cctKelvin - 3000) < 0.1 && abs(q.duv) < 1e-6, "Planckian 3000 K: \(q)")
    }

    /// Duv of the tinted sources, checked against a brute-force nearest point of the locus.
    @Test(arguments: [(3000.0, 0.01), (3000.0, -0.01), (5000, 0.01), (6500, -0.01), (7500, 0.01), (4000, 0)])
    func offLocusSourcesHaveRequestedDuv(cct: Double, duv: Double) throws {
        let s = try lib.locus.offLocusSource(cctKelvin: cct, duv: duv)
        let p = ChromaticityCoordinates.uv1960(lib.cmfs.tristimulus(of: s))
        // Independent check: golden-section search of the distance to the locus over 1/T.
        var lo = 1.0 / 20000, hi = 1.0 / 1500
        let g = (sqrt(5.0) - 1) / 2
        func dist(_ m: Double) -> Double { let q = lib.locus.uv(temperatureKelvin: 1 / m); return hypot(p.u - q.u, p.v - q.v) }
        for _ in 0..<80 {
            let a = hi - g * (hi - lo), b = lo + g * (hi - lo)
            if dist(a) < dist(b) { hi = b } else { lo = a }
        }
        let t = 2 / (lo + hi)
        let q = lib.locus.uv(temperatureKelvin: t)
        let bruteDuv = (p.v >= q.v ? 1.0 : -1.0) * hypot(p.u - q.u, p.v - q.v)
        #expect(abs(bruteDuv - duv) < 0.001, "brute-force Duv \(bruteDuv), wanted \(duv)")
        #expect(abs(t - cct) < 0.005 * cct, "brute-force CCT \(t), wanted \(cct)")
        let ohno = lib.locus.cctAndDuv(of: s)
        #expect(abs(ohno.duv - duv) < 1e-4 && abs(ohno.cctKelvin - cct) < 1)
    }

    /// Tinted CIE daylight (`daylight:K:DUV`): every Duv failed to converge while the daylight
    /// coefficients were rounded (a staircase in the temperature; a review found the documented
    /// form unusable). The source reaches the requested CCT and Duv, and Duv 0.0032 at 6504 K is
    /// D65's own point.
    @Test(arguments: [(6500.0, 0.0), (6500, 0.003), (5000, 0.01), (5000, -0.003), (10000, -0.01)])
    func tintedDaylight(cct: Double, duv: Double) throws {
        let light = try LightSpectrum(parsing: "daylight:\(cct):\(duv)").distribution(in: lib)
        let p = lib.locus.cctAndDuv(of: light)
        #expect(abs(p.duv - duv) < 1e-4 && abs(p.cctKelvin - cct) < 1, "\(p)")
    }

    /// Light descriptions outside what the models describe are refused when parsed, naming what was
    /// expected; a spectrum with no photopic power (all zeros, all of it outside the visible range, or
    /// negative) cannot be scaled to lux and says so instead of trapping.
    @Test func lightParametersOutOfRangeAndDarkSpectraAreErrors() throws {
        for (text, expected) in [("planckian:-4000", "1000–100000 K"), ("planckian:0", "1000–100000 K"), ("planckian:1", "1000–100000 K"),
                                 ("planckian:4000:5", "Duv within ±0.05"), ("daylight:4000:0.5", "Duv within ±0.05"),
                                 ("daylight:3000", "4000–25000 K"), ("led:5000", "380–780 nm"), ("led:550:0", "1–200 nm"),
                                 ("led:550:-10", "1–200 nm")] {
            do { _ = try LightSpectrum(parsing: text); Issue.record("\(text) was accepted") } catch {
                #expect(error.description.contains(expected) && error.description.contains(text), "\(text): \(error)")
            }
        }
        for text in ["planckian:1000", "planckian:100000:0.05", "daylight:25000:-0.05", "led:380:1", "led:780:200"] {
            #expect(throws: Never.self, "\(text)") { _ = try LightSpectrum(parsing: text) }
        }
        let dark = [SpectralDistribution(name: "zeros") { _ in 0 }, LightSourceModel.narrowBandLED(peakNm: 5000, halfWidthNm: 15)]
        for s in dark {
            #expect(throws: LightSourceError.noPhotopicPower(s.name)) { _ = try Photometry.scaled(s, toIlluminanceLux: 100, cmfs: lib.cmfs) }
        }
        // Negative power is said as such, even where the rest gives light (it said "no illuminance").
        let negative = SpectralDistribution(name: "dip") { nm in nm == 550 ? -7 : 1 }
        #expect(throws: LightSourceError.negativePower(name: "dip", nm: 550, value: -7)) {
            _ = try Photometry.scaled(negative, toIlluminanceLux: 100, cmfs: lib.cmfs)
        }
        // Any grid is taken (SPEC 4.2); sampling that interpolation fills in is said: a gap in a finer
        // grid by its ends, a coarse regular grid as such, either only where the gap carries over 1 %
        // of a channel's area (a coarse tail where a sensitivity has fallen to noise is quiet).
        let gap = try SpectralDistribution(wavelengthsNm: [460, 480, 500, 600, 620], values: [1, 1, 1, 1, 1], name: "gap")
        #expect(gap.value(atNm: 550) == 1)
        let gapNote = SpectralDistribution.samplingNote(wavelengthsNm: [460, 480, 500, 600, 620], channels: [[1, 1, 1, 1, 1]])
        #expect(gapNote?.hasPrefix("no samples between 500 and 600 nm where the rest is sampled every 20 nm") == true, "\(gapNote ?? "nil")")
        let regular = SpectralDistribution.samplingNote(wavelengthsNm: [450, 400, 425], channels: [[1, 2, 3]])
        #expect(regular?.hasPrefix("sampled every 25 nm") == true, "\(regular ?? "nil")")
        #expect(SpectralDistribution.samplingNote(wavelengthsNm: [400, 420, 440], channels: [[1, 1, 1]]) == nil)
        let tailW = Array(stride(from: 400.0, through: 700, by: 10)) + [750, 830]
        let tail = tailW.map { $0 <= 680 ? 1 : 0.001 }
        #expect(SpectralDistribution.samplingNote(wavelengthsNm: tailW, channels: [tail]) == nil)
        #expect(SpectralDistribution.samplingNote(wavelengthsNm: tailW, channels: [tail, tailW.map { $0 <= 690 ? 0 : 1 }]) != nil,
                "a channel whose area lies in the coarse tail is said")
        // A camera sensitivity with a negative lobe beyond 1 % of its peak.
        let lobe: JSONValue = .object(["wavelengthsNm": .array([540, 560, 580, 600, 620].map(JSONValue.number)),
                                       "red": .array([0, 0.1, 0.3, -0.5, 1].map(JSONValue.number)),
                                       "green": .array([0, 1, 0.7, 0.5, 0].map(JSONValue.number)),
                                       "blue": .array([1, 0.5, 0.2, 0, 0].map(JSONValue.number))])
        do {
            _ = try CameraSensitivity(json: lobe, file: "cam.json")
            Issue.record("a negative sensitivity was accepted")
        } catch {
            #expect("\(error)".contains("cam.json") && "\(error)".contains("'red'") && "\(error)".contains("600"), "\(error)")
        }
    }

    /// Illuminance: scaling to L lux gives K_m ∑ E ȳ Δλ = L for every source.
    @Test func scalingToLux() throws {
        for s in [lib.d65, LightSourceModel.planckian(temperatureKelvin: 3000), try lib.distribution(file: "lamp-hp1-sodium.json")] {
            let e = try Photometry.scaled(s, toIlluminanceLux: 250, cmfs: lib.cmfs)
            #expect(abs(Photometry.illuminanceLux(of: e, cmfs: lib.cmfs) - 250) < 1e-9)
        }
    }
}
