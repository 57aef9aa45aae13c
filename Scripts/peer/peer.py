#!/usr/bin/env python3
"""The benchmark peer: the constant-color pipeline (SPEC 2) as a competent engineer would write it
with numpy, OpenCV and tifffile. It is timed against `constant-color fuse` by Scripts/bench.

    peer.py FLASH.tif AMBIENT.tif --camera CAM.json --flash FLASH.json -o OUT.tif
            [--confidence CONF.tif] [--report REPORT.json]

Same stages, same numbers as the Swift pipeline: black level and exposure normalisation from the
profiles and EXIF, registration (cv2.findTransformECC, Euclidean, coarse to fine on a Gaussian
pyramid of the gradient magnitude of log luminance, finest level <= 2 MP as ours), bilinear warp of
the ambient frame, D = F - A with Poisson-Gaussian variance, white balance to the flash, the
profile's 3x3 matrix to XYZ (D65), linear Display P3, automatic exposure (99th luminance
percentile -> 0.9), confidence = 1 / (1 + (sigma_Lab / 3)^2) x local structure agreement x
validity, gap fill toward the flash frame, the global tone curve (identity to 0.8, exponential
shoulder) and pure 2.2 gamma through a lookup table, a 16-bit TIFF with a matrix/TRC ICC profile,
a float32 confidence TIFF and a JSON report with per-stage timings. float32 throughout.
"""
import argparse
import json
import struct
import sys
import time

import cv2
import numpy as np
import tifffile

CLIPPING_FRACTION = 0.98
MAX_WORKING_PIXELS = 2_000_000
NOISE_SCALE_DELTA_E = 3.0
FULL_WEIGHT_CONFIDENCE = 0.5
KNEE = 0.8
GAMMA = 2.2

D65 = np.array([0.3127 / 0.3290, 1.0, (1 - 0.3127 - 0.3290) / 0.3290])
D50 = np.array([0.9642, 1.0, 0.8249])
P3_PRIMARIES = ((0.680, 0.320), (0.265, 0.690), (0.150, 0.060))


class InputError(Exception):
    pass


def rgb_to_xyz(primaries, white=D65):
    """Linear RGB -> XYZ (white at Y = 1) from primaries (SMPTE RP 177)."""
    p = np.array([[x / y, 1.0, (1 - x - y) / y] for x, y in primaries]).T
    return p * np.linalg.solve(p, white)


def load_profiles(camera_path, flash_path):
    try:
        with open(camera_path) as f:
            cam = json.load(f)
        with open(flash_path) as f:
            fl = json.load(f)
        noise = cam["noise"]
        camera = {
            "black": float(cam["blackLevel"]), "white": float(cam["whiteLevel"]),
            "read": float(noise["readNoiseDN"]), "gain": float(noise["gainElectronsPerDN"]),
            "refISO": float(noise.get("referenceISO", 100)),
        }
        white = np.array(fl["whiteCameraRGB"], dtype=np.float64)
        matrix = np.array(fl["matrixToXYZD65"], dtype=np.float64)
    except (OSError, ValueError, KeyError) as e:
        raise InputError(f"{camera_path} / {flash_path}: cannot read profile ({e})")
    if white.shape != (3,) or matrix.shape != (3, 3) or not (white > 0).all():
        raise InputError(f"{flash_path}: whiteCameraRGB or matrixToXYZD65 is malformed")
    return camera, matrix @ np.diag(1 / white)


def rational(v):
    if isinstance(v, tuple):
        return v[0] / v[1] if v[1] else float("nan")
    return float(v)


def read_frame(path):
    """Camera RGB (H, W, 3) uint16 and exposure (t, N, ISO) from EXIF (sub-IFD or IFD0)."""
    try:
        with tifffile.TiffFile(path) as tif:
            page = tif.pages[0]
            tags = {}
            exif = page.tags.get("ExifTag")
            if exif is not None:
                tags.update(exif.value)
            for code, name in ((33434, "ExposureTime"), (33437, "FNumber"), (34855, "ISOSpeedRatings")):
                if name not in tags and code in page.tags:
                    tags[name] = page.tags[code].value
            image = page.asarray()
    except (OSError, tifffile.TiffFileError, ValueError) as e:
        raise InputError(f"{path}: cannot read TIFF ({e})")
    if image.ndim == 3 and image.shape[0] in (3, 4) and image.shape[2] not in (3, 4):
        image = np.moveaxis(image, 0, -1)  # planar -> interleaved
    if image.ndim != 3 or image.shape[2] < 3:
        raise InputError(f"{path}: camera RGB (3 samples per pixel) is required")
    missing = [n for n in ("ExposureTime", "FNumber", "ISOSpeedRatings") if n not in tags]
    if missing:
        raise InputError(f"{path}: missing EXIF exposure tag(s) {', '.join(missing)}")
    iso = tags["ISOSpeedRatings"]
    iso = float(iso[0] if isinstance(iso, (tuple, list)) else iso)
    return image[..., :3], (rational(tags["ExposureTime"]), rational(tags["FNumber"]), iso)


def normalize(raw, exposure, camera):
    """(DN - black) / (t ISO/100 / N^2) as float32, the clipped mask, and the noise (offset, slope)."""
    t, n, iso = exposure
    scale = t * iso / 100 / (n * n)
    inv = np.float32(1 / scale)
    frame = np.multiply(raw, inv, dtype=np.float32)
    frame -= np.float32(camera["black"] * inv)
    clip_dn = camera["black"] + CLIPPING_FRACTION * (camera["white"] - camera["black"])
    clipped = raw[..., 0] >= clip_dn
    clipped |= raw[..., 1] >= clip_dn
    clipped |= raw[..., 2] >= clip_dn
    k = iso / camera["refISO"]
    noise = ((k * camera["read"]) ** 2 / scale ** 2, k / camera["gain"] / scale)
    return frame, clipped, noise


def level_shift(a, factor):
    """Translation term added when an affine warp at one pyramid level is scaled by `factor` to a
    finer level (OpenCV pixel centres at integers; pyramid pixel centres at (x + 0.5) / f - 0.5)."""
    return 0.5 * (factor - 1) * (np.ones(2) - a @ np.ones(2))


def register(flash_y, ambient_y, read_sigma):
    """Euclidean ambient-from-flash warp (2x3, OpenCV pixel centres) at full resolution, the
    working-level scale, the warp at that level and the correlation of the finest level."""
    h, w = flash_y.shape
    work = 1
    while (w // work) * (h // work) > MAX_WORKING_PIXELS:
        work *= 2
    size = (w // work, h // work)

    def feature(y):
        small = cv2.resize(y, size, interpolation=cv2.INTER_AREA) if work > 1 else y
        log = np.log(np.maximum(small, np.float32(3 * read_sigma)))
        gx = cv2.Sobel(log, cv2.CV_32F, 1, 0, ksize=3)
        gy = cv2.Sobel(log, cv2.CV_32F, 0, 1, ksize=3)
        return cv2.magnitude(gx, gy)

    pyr_f, pyr_a = [feature(flash_y)], [feature(ambient_y)]
    while min(pyr_f[-1].shape) >= 128:
        pyr_f.append(cv2.pyrDown(pyr_f[-1]))
        pyr_a.append(cv2.pyrDown(pyr_a[-1]))
    warp = np.eye(2, 3, dtype=np.float32)
    rho = float("nan")
    for level in range(len(pyr_f) - 1, -1, -1):
        iterations = 100 if level == len(pyr_f) - 1 else 30
        criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, iterations, 1e-5)
        try:
            rho, warp = cv2.findTransformECC(pyr_f[level], pyr_a[level], warp, cv2.MOTION_EUCLIDEAN,
                                             criteria, None, 5)
        except cv2.error:
            rho = float("nan")  # keep the coarser estimate
        if level > 0:
            warp[:, 2] = 2 * warp[:, 2] + level_shift(warp[:, :2].astype(np.float64), 2)
    full = warp.astype(np.float64)
    full[:, 2] = work * full[:, 2] + level_shift(full[:, :2], work)
    return full, work, warp, pyr_f[0], pyr_a[0], rho


def match_map(template, moving, warp):
    """Local (7x7) agreement of the two feature images at the working level, in [0, 1] (1 = agree
    or no structure), as in the Swift pipeline."""
    warped = cv2.warpAffine(moving, warp, template.shape[::-1], flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                            borderMode=cv2.BORDER_REPLICATE)
    box = lambda x: cv2.boxFilter(x, cv2.CV_32F, (7, 7), borderType=cv2.BORDER_REFLECT)
    mt, mm = box(template), box(warped)
    var_t = np.maximum(box(template * template) - mt * mt, 0)
    var_m = np.maximum(box(warped * warped) - mm * mm, 0)
    cov = box(template * warped) - mt * mm
    floor_t, floor_m = 4 * np.median(var_t), 4 * np.median(var_m)
    ncc = cov / np.sqrt((var_t + floor_t) * (var_m + floor_m))
    structure = np.maximum(var_t / max(floor_t, 1e-30), var_m / max(floor_m, 1e-30))
    evidence = np.clip((structure - 1) / 3, 0, 1)
    agreement = np.clip((ncc - 0.25) / 0.5, 0, 1)
    return 1 - evidence * (1 - agreement)


def percentile_scale(y_image, usable):
    """0.9 / (99th percentile of positive luminance over usable pixels, on a <= 1 M sample grid)."""
    n = y_image.size
    step = max(1, int((n / 1_000_000) ** 0.5))
    y = y_image[::step, ::step][usable[::step, ::step]]
    y = y[np.isfinite(y) & (y > 0)]
    if y.size < 16:
        return 1.0
    k = min(y.size - 1, int(y.size * 0.99))
    p = float(np.partition(y, k)[k])
    return 0.9 / p if p > 0 else 1.0


def tone_lut(size=65536, domain=8.0):
    """uint16 code values of tone + gamma over u = sqrt(x / domain) in [0, 1]."""
    u = np.linspace(0, 1, size)
    x = u * u * domain
    t = np.where(x <= KNEE, x, KNEE + (1 - KNEE) * (1 - np.exp(-(x - KNEE) / (1 - KNEE))))
    return np.rint(np.power(t, 1 / GAMMA) * 65535).astype(np.uint16), domain


def icc_profile(primaries=P3_PRIMARIES, gamma=GAMMA, name="Display P3 gamma 2.2 (peer)"):
    """A minimal ICC v2 display profile: Bradford-adapted (D65 -> D50) colorants and a gamma curve."""
    bradford = np.array([[0.8951, 0.2664, -0.1614], [-0.7502, 1.7135, 0.0367], [0.0389, -0.0685, 1.0296]])
    adapt = np.linalg.solve(bradford, np.diag((bradford @ D50) / (bradford @ D65)) @ bradford)
    colorants = adapt @ rgb_to_xyz(primaries)
    s15 = lambda v: struct.pack(">i", int(round(v * 65536)))
    xyz = lambda v: b"XYZ \0\0\0\0" + b"".join(s15(c) for c in v)
    ascii_name = name.encode("ascii") + b"\0"
    desc = (b"desc\0\0\0\0" + struct.pack(">I", len(ascii_name)) + ascii_name + b"\0" * 8 + b"\0\0\0" + b"\0" * 67)
    tags = [(b"desc", desc), (b"cprt", b"text\0\0\0\0No copyright, use freely\0"), (b"wtpt", xyz(D50)),
            (b"rXYZ", xyz(colorants[:, 0])), (b"gXYZ", xyz(colorants[:, 1])), (b"bXYZ", xyz(colorants[:, 2])),
            (b"rTRC", b"curv\0\0\0\0" + struct.pack(">IH", 1, int(round(gamma * 256))) + b"\0\0")]
    tags += [(b"gTRC", tags[-1][1]), (b"bTRC", tags[-1][1])]
    offset = 128 + 4 + 12 * len(tags)
    table, data = b"", b""
    for sig, body in tags:
        table += sig + struct.pack(">II", offset + len(data), len(body))
        data += body + b"\0" * (-len(body) % 4)
    size = offset + len(data)
    header = (struct.pack(">I", size) + b"\0" * 4 + struct.pack(">I", 0x02100000) + b"mntrRGB XYZ "
              + b"\0" * 12 + b"acsp" + b"\0" * 24 + struct.pack(">I", 0) + b"".join(s15(c) for c in D50)
              + b"\0" * 48)
    return header + struct.pack(">I", len(tags)) + table + data


def center_weighted_mean(conf):
    h, w = conf.shape
    sigma = 0.25 * min(w, h)
    wx = np.exp(-((np.arange(w) + 0.5 - w / 2) ** 2) / (2 * sigma * sigma))
    wy = np.exp(-((np.arange(h) + 0.5 - h / 2) ** 2) / (2 * sigma * sigma))
    return float(wy @ (conf @ wx) / (wy.sum() * wx.sum()))


def fuse(args):
    timings = {}
    clock = [time.perf_counter()]

    def lap(name):
        now = time.perf_counter()
        timings[name] = now - clock[0]
        clock[0] = now

    camera, cam_to_xyz = load_profiles(args.camera, args.flash_profile)
    raw_f, exp_f = read_frame(args.flash)
    raw_a, exp_a = read_frame(args.ambient)
    if raw_f.shape != raw_a.shape:
        raise InputError(f"{args.ambient}: size {raw_a.shape[1]}x{raw_a.shape[0]} differs from the flash frame")
    h, w = raw_f.shape[:2]
    lap("decode")

    F, clip_f, noise_f = normalize(raw_f, exp_f, camera)
    A, clip_a, noise_a = normalize(raw_a, exp_a, camera)
    del raw_f, raw_a
    lap("normalize")

    y_row = cam_to_xyz[1].astype(np.float32).reshape(1, 3)
    warp, work, warp_level, feat_f, feat_a, rho = register(cv2.transform(F, y_row), cv2.transform(A, y_row),
                                                           noise_f[0] ** 0.5)
    match = match_map(feat_f, feat_a, warp_level)
    lap("register")

    # Warp the ambient frame into the flash frame; NaN marks "no ambient sample" (bilinear footprint
    # leaves the frame), the dilated ambient clip mask goes through the same warp.
    inverse = cv2.WARP_INVERSE_MAP
    A = cv2.warpAffine(A, warp, (w, h), flags=cv2.INTER_LINEAR | inverse, borderMode=cv2.BORDER_CONSTANT,
                       borderValue=(float("nan"),) * 3)
    no_sample = np.isnan(A[..., 0])
    clip_a = cv2.warpAffine(cv2.dilate(clip_a.view(np.uint8), np.ones((3, 3), np.uint8)), warp, (w, h),
                            flags=cv2.INTER_NEAREST | inverse, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    # Variance (Poisson-Gaussian, both frames), then D = F - A in place of the warped ambient frame.
    V = np.maximum(F, 0)
    V *= np.float32(noise_f[1])
    V += np.float32(noise_f[0] + noise_a[0])
    V += np.float32(noise_a[1]) * np.maximum(A, 0)
    D = np.subtract(F, A, out=A)
    D[no_sample] = 0
    V[no_sample] = 0
    del A
    invalid = no_sample.view(np.uint8) | clip_a | clip_f.view(np.uint8)
    lap("darkRoom")

    usable = invalid == 0
    scale = percentile_scale(cv2.transform(D, y_row), usable)
    xyz_to_p3 = np.linalg.inv(rgb_to_xyz(P3_PRIMARIES))
    to_xyz = cam_to_xyz * scale
    lin = cv2.transform(D, (xyz_to_p3 @ to_xyz).astype(np.float32))
    lap("render")

    # sigma^2 of CIELAB from the per-channel variance (CIE 15:2004 f(t) and its slope).
    m = to_xyz / D65[:, None]
    T = cv2.transform(D, m.astype(np.float32))
    t0 = np.float32(216 / 24389)
    G = np.cbrt(T * T)
    G *= 3
    with np.errstate(divide="ignore"):
        np.reciprocal(G, out=G)
    G[T <= t0] = np.float32(841 / 108)
    gx, gy, gz = G[..., 0], G[..., 1], G[..., 2]
    total = np.zeros((h, w), np.float32)
    for c in range(3):
        mx, my, mz = (np.float32(v) for v in m[:, c])
        dl = (116 * my) * gy
        da = (500 * mx) * gx - (500 * my) * gy
        db = (200 * my) * gy - (200 * mz) * gz
        dl *= dl
        da *= da
        db *= db
        dl += da
        dl += db
        dl *= V[..., c]
        total += dl
    del T, G, V
    conf = np.float32(NOISE_SCALE_DELTA_E ** 2) / (np.float32(NOISE_SCALE_DELTA_E ** 2) + total)
    del total
    if work > 1:
        match = cv2.resize(match, (w, h), interpolation=cv2.INTER_LINEAR)
    conf *= match
    invalid = cv2.dilate(invalid, np.ones((3, 3), np.uint8))
    conf[invalid != 0] = 0
    np.nan_to_num(conf, copy=False, nan=0.0)
    np.clip(conf, 0, 1, out=conf)
    lap("confidence")

    # Gap fill toward the flash frame (same rendering, brightness matched where trusted).
    n = h * w
    step = max(1, n // 500_000)
    flat_d, flat_f, flat_c = D.reshape(-1, 3)[::step], F.reshape(-1, 3)[::step], conf.reshape(-1)[::step]
    row = cam_to_xyz[1].astype(np.float32)
    yd, yf = flat_d @ row, flat_f @ row
    ok = (flat_c >= 0.5) & (yd > 0) & (yf > 0)
    flash_scale = scale * (float(np.median(yd[ok] / yf[ok])) if ok.any() else 1.0)
    flash_rgb = cv2.transform(F, (xyz_to_p3 @ (cam_to_xyz * flash_scale)).astype(np.float32))
    del F, D
    a = np.clip(conf / np.float32(FULL_WEIGHT_CONFIDENCE), 0, 1)
    a = a * a * (3 - 2 * a)
    lin -= flash_rgb
    lin *= a[..., None]
    lin += flash_rgb
    del flash_rgb
    lut, domain = tone_lut()
    np.fmax(lin, 0, out=lin)
    lin *= np.float32(1 / domain)
    np.sqrt(lin, out=lin)
    np.fmin(lin, 1, out=lin)
    lin *= np.float32(len(lut) - 1)
    rendered = lut[lin.astype(np.int32)]  # NaN -> 0 after maximum
    del lin
    lap("gapFillAndEncode")

    mean = center_weighted_mean(conf)
    decision = "constantColor" if mean >= args.threshold else "fallback"
    tifffile.imwrite(args.output, rendered, photometric="rgb", iccprofile=icc_profile())
    if args.confidence:
        tifffile.imwrite(args.confidence, conf, photometric="minisblack")
    lap("encode")

    if args.report:
        a2, t2 = warp[:, :2], warp[:, 2]
        cont = np.vstack([np.hstack([a2, (t2 + 0.5 - a2 @ [0.5, 0.5])[:, None]]), [0, 0, 1]])
        ratio = (exp_f[0] * exp_f[2] / exp_f[1] ** 2) / (exp_a[0] * exp_a[2] / exp_a[1] ** 2)
        report = {
            "tool": "peer (numpy + OpenCV + tifffile)", "version": f"numpy {np.__version__}, "
            f"opencv {cv2.__version__}, tifffile {tifffile.__version__}",
            "width": w, "height": h, "centerWeightedMeanConfidence": mean, "threshold": args.threshold,
            "decision": decision,
            "registration": {"model": "rigid", "ambientFromFlash": cont.tolist(), "eccCorrelation": rho,
                             "workingDownscale": work},
            "exposure": {"flash": dict(zip(("exposureTime", "fNumber", "iso"), exp_f)),
                         "ambient": dict(zip(("exposureTime", "fNumber", "iso"), exp_a)), "ratio": ratio},
            "clippedFraction": {"flash": float(clip_f.mean()), "either": float((invalid != 0).mean())},
            "rendering": {"primaries": "p3", "outputScale": scale, "flashFrameScale": flash_scale},
            "timingsSeconds": {**timings, "total": sum(timings.values())},
            "inputs": {"flash": args.flash, "ambient": args.ambient, "camera": args.camera,
                       "flashProfile": args.flash_profile, "output": args.output},
        }
        with open(args.report, "w") as f:
            json.dump(report, f, indent=2, sort_keys=True)
    print(f"peer: {w}x{h} mean confidence {mean:.3f} -> {decision}; total {sum(timings.values()):.2f} s",
          file=sys.stderr)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("flash")
    p.add_argument("ambient")
    p.add_argument("--camera", required=True)
    p.add_argument("--flash", dest="flash_profile", required=True)
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--confidence")
    p.add_argument("--report")
    p.add_argument("--threshold", type=float, default=0.85)
    args = p.parse_args()
    try:
        fuse(args)
    except InputError as e:
        print(f"peer: error: {e}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
