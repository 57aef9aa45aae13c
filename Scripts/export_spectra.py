"""Export the spectral data that Constant Color renders and calibrates with.

Run through `Scripts/export-spectra`, which makes the virtual environment. Writes SPEC 4.2 JSON
into fixtures/spectra/ (one file per item, each with a "source" naming the colour-science dataset
and the original publication) and the ColorChecker test vector into fixtures/spectra/test-vectors/.

File formats (all wavelengths in nm, ascending, within 360-830 nm):
  single SPD       {"wavelengthsNm": [...], "values": [...], "name", "source"}
  camera           {"wavelengthsNm": [...], "red": [...], "green": [...], "blue": [...], "name", "source"}
  multi-SD set     {"wavelengthsNm": [...], "names": [n1, ...], "values": [[v of n1...], ...], "name", "source"}
                   (values[i] is the distribution named names[i], sampled at wavelengthsNm)
Numbers are rounded to 6 significant digits; this keeps the folder small and changes XYZ far
below 0.01 CIEDE2000.
"""
import json
import os
import sys
import warnings

warnings.filterwarnings("ignore")

import numpy as np  # noqa: E402
import colour  # noqa: E402
from colour.colorimetry import SDS_BASIS_FUNCTIONS_CIE_ILLUMINANT_D_SERIES  # noqa: E402

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "fixtures", "spectra")
LO, HI = 360.0, 830.0
VERSION = f"colour-science {colour.__version__}"


def r6(values):
    return [float(f"{float(v):.6g}") for v in np.asarray(values).ravel()]


def clip_range(wavelengths, *columns):
    w = np.asarray(wavelengths, dtype=float)
    keep = (w >= LO) & (w <= HI)
    return [w[keep]] + [np.asarray(c, dtype=float)[..., keep] for c in columns]


def write(name, obj):
    path = os.path.join(OUT, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(obj, f, separators=(",", ":"))
        f.write("\n")
    print(f"{path}: {os.path.getsize(path)} bytes")


def write_sd(filename, sd, name, source):
    w, v = clip_range(sd.wavelengths, sd.values)
    write(filename, {"name": name, "source": source, "wavelengthsNm": r6(w), "values": r6(v)})


def write_multi(filename, wavelengths, names, columns, name, source):
    w, *cols = clip_range(wavelengths, *columns)
    write(filename, {"name": name, "source": source, "wavelengthsNm": r6(w), "names": list(names),
                     "values": [r6(c) for c in cols]})


def write_msds(filename, msds, name, source, names=None):
    labels = list(msds.labels)
    write_multi(filename, msds.wavelengths, names or labels,
                [msds.values[:, i] for i in range(len(labels))], name, source)


def main():
    # ColorChecker reflectances.
    for key, filename, pub in [
        ("BabelColor Average", "colorchecker-babelcolor-average.json",
         "Pascale, D. (2006). RGB coordinates of the Macbeth ColorChecker. BabelColor "
         "(average of 30 charts' spectral reflectances)"),
        ("ColorChecker N Ohta", "colorchecker-ohta.json",
         "Ohta, N. (1997). The basis of color reproduction engineering (spectral reflectances "
         "of the ColorChecker), via Munsell Color Science Laboratory"),
    ]:
        sds = colour.SDS_COLOURCHECKERS[key]
        names = list(sds.keys())
        first = sds[names[0]]
        write_multi(filename, first.wavelengths, names, [sds[n].values for n in names],
                    f"ColorChecker ({key})",
                    f"{VERSION}: colour.SDS_COLOURCHECKERS['{key}']; {pub}")

    cmfs = colour.MSDS_CMFS["CIE 1931 2 Degree Standard Observer"]
    write_msds("cie1931-2deg-cmfs.json", cmfs, "CIE 1931 2 degree standard observer",
               f"{VERSION}: colour.MSDS_CMFS['CIE 1931 2 Degree Standard Observer']; "
               "CIE 015:2004 Colorimetry, 3rd ed., Table T.4 (via CVRL)",
               names=["xBar", "yBar", "zBar"])

    write_sd("illuminant-d65.json", colour.SDS_ILLUMINANTS["D65"], "CIE standard illuminant D65",
             f"{VERSION}: colour.SDS_ILLUMINANTS['D65']; CIE 015:2004 Table T.1 / ISO 11664-2")
    write_sd("illuminant-a.json",
             colour.sd_CIE_standard_illuminant_A(colour.SpectralShape(LO, HI, 5)),
             "CIE standard illuminant A",
             f"{VERSION}: colour.sd_CIE_standard_illuminant_A (360-830 nm, 5 nm); "
             "CIE 015:2004 eq. 3.1 / ISO 11664-2 (Planckian, c2 = 1.435e-2 m K, T = 2848 K, i.e. 2856 K with c2 = 1.4388e-2)")

    basis = SDS_BASIS_FUNCTIONS_CIE_ILLUMINANT_D_SERIES
    s0 = basis["S0"]
    write_multi("cie-daylight-basis.json", s0.wavelengths, ["S0", "S1", "S2"],
                [basis[k].values for k in ["S0", "S1", "S2"]], "CIE daylight basis functions",
                f"{VERSION}: colour.colorimetry.SDS_BASIS_FUNCTIONS_CIE_ILLUMINANT_D_SERIES; "
                "CIE 015:2004 Table T.2 (S0, S1, S2; 5 nm values by linear interpolation of the 10 nm table)")

    lamps = [
        ("lamp-fl2.json", "FL2", "CIE FL2 cool white fluorescent (4230 K)", "CIE 015:2004 Table T.6"),
        ("lamp-fl11.json", "FL11", "CIE FL11 narrow-band tri-phosphor fluorescent (4000 K)", "CIE 015:2004 Table T.6"),
        ("lamp-hp1-sodium.json", "HP1", "CIE HP1 standard high-pressure sodium (1959 K)",
         "CIE 015:2018 Table 10 (high-pressure lamps)"),
        ("lamp-hp5-metal-halide.json", "HP5", "CIE HP5 high-pressure metal halide (4041 K)",
         "CIE 015:2018 Table 10 (high-pressure lamps)"),
        ("lamp-led-b1-warm.json", "LED-B1", "CIE LED-B1 phosphor-converted blue warm white LED (2733 K)",
         "CIE 015:2018 Table 11 (LED illuminants)"),
        ("lamp-led-b5-cool.json", "LED-B5", "CIE LED-B5 phosphor-converted blue cool white LED (6598 K)",
         "CIE 015:2018 Table 11 (LED illuminants)"),
    ]
    for filename, key, name, pub in lamps:
        write_sd(filename, colour.SDS_ILLUMINANTS[key], name,
                 f"{VERSION}: colour.SDS_ILLUMINANTS['{key}']; {pub}")

    write_sd("flash-phosphor-led-yag.json", colour.SDS_LIGHT_SOURCES["Phosphor LED YAG"],
             "Phosphor LED YAG (phone-like white LED flash)",
             f"{VERSION}: colour.SDS_LIGHT_SOURCES['Phosphor LED YAG']; NIST CQS simulation 7.4 "
             "(Ohno, Y., Davis, W. (2010). Color quality scale), measured YAG phosphor white LED")
    write_sd("flash-led-b4.json", colour.SDS_ILLUMINANTS["LED-B4"],
             "CIE LED-B4 phosphor-converted white LED (5109 K), second device's flash",
             f"{VERSION}: colour.SDS_ILLUMINANTS['LED-B4']; CIE 015:2018 Table 11 (LED illuminants)")

    for filename, key in [("camera-nikon-5100-npl.json", "Nikon 5100 (NPL)"),
                          ("camera-sigma-sdmerill-npl.json", "Sigma SDMerill (NPL)")]:
        m = colour.MSDS_CAMERA_SENSITIVITIES[key]
        w, r, g, b = clip_range(m.wavelengths, m.values[:, 0], m.values[:, 1], m.values[:, 2])
        write(filename, {"name": key,
                         "source": f"{VERSION}: colour.MSDS_CAMERA_SENSITIVITIES['{key}']; "
                                   "Darrodi, M. M., Finlayson, G., Goodman, T., Mackiewicz, M. (2015). "
                                   "Reference data set for camera spectral sensitivity estimation. "
                                   "JOSA A 32(3), 381-391 (National Physical Laboratory measurements)",
                         "wavelengthsNm": r6(w), "red": r6(r), "green": r6(g), "blue": r6(b)})

    training = colour.characterisation.read_training_data_rawtoaces_v1()
    write_msds("training-rawtoaces-v1-190.json", training,
               "rawtoaces v1 training reflectances (190 patches)",
               f"{VERSION}: colour.characterisation.read_training_data_rawtoaces_v1(); "
               "Academy rawtoaces v1 training data (190 reflectances), "
               "used for IDT matrix fitting (Academy P-2013-001)")

    # Test vector: XYZ and Lab of the BabelColor patches under D65, CIE 1931 2 degree observer.
    d65 = colour.SDS_ILLUMINANTS["D65"]
    sds = colour.SDS_COLOURCHECKERS["BabelColor Average"]
    white = colour.sd_to_XYZ(colour.sd_ones(sds["dark skin"].shape), cmfs, d65)
    patches = []
    for n, sd in sds.items():
        XYZ = colour.sd_to_XYZ(sd, cmfs, d65)
        Lab = colour.XYZ_to_Lab(XYZ / 100, colour.XYZ_to_xy(white / 100))
        patches.append({"name": n, "xyz": r6(XYZ), "lab": r6(Lab)})
    write("test-vectors/colorchecker-xyz-d65.json", {
        "name": "ColorChecker (BabelColor Average) under CIE D65, CIE 1931 2 degree observer",
        "source": f"{VERSION}: colour.sd_to_XYZ(sd, MSDS_CMFS['CIE 1931 2 Degree Standard Observer'], "
                  "SDS_ILLUMINANTS['D65']) with its default method (ASTM E308-15), reflectances "
                  "from colour.SDS_COLOURCHECKERS['BabelColor Average']; Lab by colour.XYZ_to_Lab "
                  "relative to whiteXYZ (perfect reflector under D65, same method)",
        "whiteXYZ": r6(white), "patches": patches})


if __name__ == "__main__":
    main()
